# The Swift tests that started and neither passed nor failed, from swift test's output: those running when a run
# crashed or was stopped at its time bound. Parameterized cases are left out (their test is named).
/^◇ Test .* started\.$/ && !/^◇ Test case / {
  name = $0; sub(/^◇ Test /, "", name); sub(/ started\.$/, "", name); running[name]++
}
/^(✔|✘) Test .* (passed|failed)/ {
  name = $0; sub(/^(✔|✘) Test /, "", name); sub(/( with [0-9]+ test cases?)? (passed|failed).*$/, "", name); running[name]--
}
END { for (name in running) if (name != "run" && running[name] > 0) print "  " name }
