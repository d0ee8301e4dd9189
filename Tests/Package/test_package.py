"""The Debian package installed where there is no Swift: a clean Debian root made with debootstrap from Debian's own
packages (cached between runs), the .deb from scripts/package installed into it with dpkg, and `tvguide serve` run
inside it (chroot, as the tvguide user the package made) until it answers the grid. Also: systemd-analyze verify
accepts the unit; removing the package keeps the data, purging removes it and the user; the .tar.gz holds the same
files; the Containerfile's runtime stage, built and run by podman (ContainerTests).

Needs root (debootstrap, chroot, mount). The package is dist/*.deb (scripts/package, which scripts/test runs first);
the root is cached in $TVGUIDE_TEST_CACHE (default ~/.cache/tvguide-test), keyed by the package's dependencies.
"""
import glob
import hashlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.environ.get("TVGUIDE_TEST_CACHE", os.path.expanduser("~/.cache/tvguide-test"))
MIRROR = os.environ.get("TVGUIDE_DEBIAN_MIRROR", "http://deb.debian.org/debian")
SUITE = "bookworm"


def run(arguments, **options):
    result = subprocess.run(arguments, capture_output=True, text=True, **options)
    if result.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (" ".join(arguments), result.returncode, result.stdout[-3000:], result.stderr[-3000:]))
    return result.stdout


def newest(pattern):
    found = sorted(glob.glob(os.path.join(ROOT, "dist", pattern)), key=os.path.getmtime)
    if not found:
        raise AssertionError("no dist/%s: run scripts/package first" % pattern)
    return found[-1]


def dependencies(deb):
    """The package names the .deb depends on (versions dropped)."""
    field = run(["dpkg-deb", "-f", deb, "Depends"])
    return sorted({part.strip().split(" ")[0] for part in field.split(",") if part.strip()})


def debian_root(packages):
    """A tarball of a minimal Debian with `packages` (and systemd, as on a server) and no Swift, made once per set."""
    wanted = sorted(set(packages) | {"systemd"})
    key = hashlib.sha256((SUITE + " " + " ".join(wanted)).encode()).hexdigest()[:16]
    tarball = os.path.join(CACHE, "debian-%s-%s.tar" % (SUITE, key))
    if os.path.exists(tarball):
        return tarball
    os.makedirs(CACHE, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="tvguide-debootstrap-")
    try:
        print("test_package: debootstrap %s with %s (cached in %s) ..." % (SUITE, ",".join(wanted), CACHE), flush=True)
        run(["debootstrap", "--variant=minbase", "--include=" + ",".join(wanted), SUITE, folder, MIRROR])
        partial = tarball + ".partial"
        run(["tar", "-C", folder, "-cf", partial, "."])
        os.rename(partial, tarball)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return tarball


class Chroot:
    """A fresh copy of the cached root, with /proc and /dev mounted for the programs run in it."""

    def __init__(self, tarball):
        self.path = tempfile.mkdtemp(prefix="tvguide-root-")
        run(["tar", "-C", self.path, "-xf", tarball])
        os.chmod(self.path, 0o755)  # It is /, which every user walks through (the tarball's "." came from mkdtemp).
        self.mounts = []
        for source, target, kind in [("proc", "proc", ["-t", "proc"]), ("/dev", "dev", ["--bind"])]:
            point = os.path.join(self.path, target)
            run(["mount"] + kind + [source, point])
            self.mounts.append(point)

    def run(self, *command, user=None):
        prefix = ["chroot"] + (["--userspec=%s:%s" % (user, user)] if user else []) + [self.path]
        return run(prefix + ["env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/var/lib/tvguide", "TZ=UTC"] + list(command))

    def succeeds(self, *command):
        return subprocess.run(["chroot", self.path] + list(command), capture_output=True).returncode == 0

    def popen(self, *command, user, log, root=None):
        return subprocess.Popen(["chroot", "--userspec=%s:%s" % (user, user), root or self.path,
                                 "env", "-i", "PATH=/usr/bin:/bin", "HOME=/var/lib/tvguide", "TZ=UTC"] + list(command),
                                stdout=log, stderr=subprocess.STDOUT)

    def read_only_view(self, writable):
        """The root again, read-only but for `writable` (what the unit's ProtectSystem=strict, ReadWritePaths and
        PrivateTmp leave a service): a path to chroot into, unmounted by close()."""
        view = tempfile.mkdtemp(prefix="tvguide-view-")
        os.chmod(view, 0o755)
        run(["mount", "--rbind", self.path, view])
        # Private, so the mounts made on the view stay off the root itself.
        run(["mount", "--make-rprivate", view])
        run(["mount", "-o", "remount,bind,ro", view])
        for path in writable:
            run(["mount", "--bind", self.file(path), os.path.join(view, path.lstrip("/"))])
        return view

    def drop(self, view):
        subprocess.run(["umount", "--recursive", view], capture_output=True)
        os.rmdir(view)

    def file(self, path):
        return os.path.join(self.path, path.lstrip("/"))

    def close(self):
        for point in reversed(self.mounts):
            subprocess.run(["umount", "--lazy", point], capture_output=True)
        shutil.rmtree(self.path, ignore_errors=True)


def free_port():
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@unittest.skipUnless(os.geteuid() == 0, "needs root: debootstrap, chroot and mount")
class PackageTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.deb = newest("tvguide_*.deb")
        cls.tarball = newest("tvguide-*-linux-*.tar.gz")
        cls.root = Chroot(debian_root(dependencies(cls.deb)))
        shutil.copy(cls.deb, cls.root.file("/tmp/tvguide.deb"))

    @classmethod
    def tearDownClass(cls):
        cls.root.close()

    def test_1_the_root_has_no_swift(self):
        self.assertFalse(self.root.succeeds("sh", "-c", "command -v swift || command -v swiftc"))
        self.assertEqual(glob.glob(self.root.file("/usr/lib/**/libswiftCore.so*"), recursive=True), [])
        self.assertFalse(os.path.exists(self.root.file("/opt/swift")))

    def test_1_it_recommends_the_xmltv_grabbers(self):
        # Grabber sources run the XMLTV project's grabbers; apt installs recommendations by default.
        self.assertEqual(run(["dpkg-deb", "-f", self.deb, "Recommends"]).strip(), "xmltv-util")

    def test_1_it_ships_the_licence_and_the_notices(self):
        listing = run(["dpkg-deb", "-c", self.deb])
        for name in ("LICENSE", "NOTICE", "THIRD-PARTY-NOTICES.md", "copyright"):
            self.assertIn(f"./usr/share/doc/tvguide/{name}\n", listing)
        extracted = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, extracted)
        run(["dpkg-deb", "-x", self.deb, extracted])
        doc = pathlib.Path(extracted, "usr/share/doc/tvguide")
        licence = (doc / "LICENSE").read_text()
        self.assertIn("Apache License", licence)
        self.assertIn("Version 2.0", licence)
        # Every package the binary is built from is named with its licence text, and the runtime too.
        notices = (doc / "THIRD-PARTY-NOTICES.md").read_text()
        for package in ("hummingbird", "grdb.swift", "swift-nio", "swift-crypto", "postgres-nio"):
            self.assertIn(f"### {package}\n", notices)
        self.assertIn("Runtime Library Exception", notices)

    def test_2_installs_and_serves_the_grid_as_its_own_user(self):
        self.root.run("dpkg", "-i", "/tmp/tvguide.deb")
        self.assertIn("tvguide:", self.root.run("getent", "passwd", "tvguide"))
        self.assertEqual(self.root.run("stat", "-c", "%U %a", "/var/lib/tvguide").split(), ["tvguide", "750"])
        self.assertEqual(self.root.run("stat", "-c", "%U:%G %a", "/etc/tvguide/tvguide.conf").split(), ["root:tvguide", "640"])
        # Enabled at boot (systemctl makes the link even where systemd is not running).
        self.assertTrue(os.path.islink(self.root.file("/etc/systemd/system/multi-user.target.wants/tvguide.service")))
        self.assertIn("valid", self.root.run("tvguide", "config", "check", user="tvguide"))
        # The Swift runtime is loaded from beside the program, and nothing Swift from anywhere else.
        ldd = self.root.run("ldd", "/usr/lib/tvguide/tvguide")
        loaded = [line.split() for line in ldd.splitlines() if "=>" in line]
        swift = [fields[2] for fields in loaded if "swift" in fields[0].lower() or "Foundation" in fields[0]]
        self.assertIn("/usr/lib/tvguide/libswiftCore.so", swift)
        self.assertIn("/usr/lib/tvguide/libFoundation.so", swift)
        self.assertEqual([path for path in swift if not path.startswith("/usr/lib/tvguide/")], [])
        self.assertNotIn("not found", ldd)

        port = free_port()
        log = tempfile.TemporaryFile("a+")  # appended: see Tests/Browser/tvguide_server.py
        self.addCleanup(log.close)
        # Everything but /var/lib/tvguide and /tmp read-only, as the unit's sandbox has it.
        view = self.root.read_only_view(["/var/lib/tvguide", "/tmp"])
        self.addCleanup(self.root.drop, view)
        self.assertNotEqual(subprocess.run(["chroot", view, "touch", "/etc/written"], capture_output=True).returncode, 0)
        server = self.root.popen("tvguide", "serve", "--port", str(port), user="tvguide", log=log, root=view)
        try:
            page = None
            deadline = time.time() + 180
            while page is None and time.time() < deadline and server.poll() is None:
                try:
                    with urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=10) as answer:
                        page = answer.read().decode()
                except OSError:
                    time.sleep(0.5)
            log.seek(0)
            output = log.read()
            self.assertIsNotNone(page, "serve in the Debian root never answered:\n" + output)
            # The bundled sample listings, imported into the empty guide, fill the grid (templates and data came from
            # the program's resources beside it).
            self.assertIn('class="grid', page)
            self.assertIn("importing the bundled sample listings", output)
            self.assertIn("/var/lib/tvguide/guide.sqlite", output)
            # The setup code is in a file only the service's user reads, not in the log (the journal, which adm reads).
            self.assertEqual(self.root.run("stat", "-c", "%U %a", "/var/lib/tvguide/setup-code").split(), ["tvguide", "600"])
            with open(self.root.file("/var/lib/tvguide/setup-code")) as file:
                code = file.read().strip()
            self.assertRegex(code, r"^[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}$")
            self.assertNotIn(code, output)
            self.assertIn("setup code in /var/lib/tvguide/setup-code", output)
            with urllib.request.urlopen("http://127.0.0.1:%d/api/channels" % port, timeout=10) as answer:
                channels = json.load(answer)
            self.assertGreater(len(channels if isinstance(channels, list) else channels["channels"]), 10)
            server.send_signal(signal.SIGTERM)
            self.assertEqual(server.wait(timeout=60), 0)
        finally:
            if server.poll() is None:
                server.kill()
        self.assertTrue(os.path.exists(self.root.file("/var/lib/tvguide/guide.sqlite")))
        self.assertEqual(self.root.run("stat", "-c", "%U", "/var/lib/tvguide/guide.sqlite").strip(), "tvguide")

    def test_3_systemd_accepts_the_unit(self):
        self.root.run("systemd-analyze", "verify", "/lib/systemd/system/tvguide.service")
        with open(self.root.file("/lib/systemd/system/tvguide.service")) as file:
            unit = file.read()
        for setting in ["User=tvguide", "ProtectSystem=strict", "ProtectHome=true", "PrivateTmp=true", "NoNewPrivileges=true",
                        "ReadWritePaths=/var/lib/tvguide", "Restart=on-failure", "SystemCallFilter=@system-service",
                        "MemoryDenyWriteExecute=true", "ProtectProc=invisible", "IPAddressDeny=169.254.0.0/16 fe80::/10"]:
            self.assertIn(setting, unit)

    def test_4_remove_keeps_the_data_and_purge_removes_it(self):
        self.root.run("dpkg", "-r", "tvguide")
        self.assertFalse(os.path.exists(self.root.file("/usr/bin/tvguide")))
        self.assertTrue(os.path.exists(self.root.file("/var/lib/tvguide/guide.sqlite")))
        self.assertTrue(os.path.exists(self.root.file("/etc/tvguide/tvguide.conf")))
        self.root.run("dpkg", "-P", "tvguide")
        self.assertFalse(os.path.exists(self.root.file("/var/lib/tvguide")))
        self.assertFalse(os.path.exists(self.root.file("/etc/tvguide")))
        self.assertFalse(self.root.succeeds("getent", "passwd", "tvguide"))

    def test_5_the_tarball_holds_the_same_files(self):
        names = lambda paths: sorted(path.lstrip("./").rstrip("/") for path in paths if path.strip("./"))
        in_deb = names(line.split()[-1] if "->" not in line else line.split()[-3]
                       for line in run(["dpkg-deb", "-c", self.deb]).splitlines())
        with tarfile.open(self.tarball) as archive:
            in_tar = names(archive.getnames())
        self.assertEqual(in_deb, in_tar)


PODMAN = ["podman", "--runtime", "runc", "--cgroup-manager", "cgroupfs"]
# Limits no higher than this machine's, which a container may not raise.
LIMITS = ["--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"]
BASE = "localhost/tvguide-test-debian:" + SUITE


def runtime_stage(containerfile):
    """The Containerfile's runtime stage (its global ARGs and everything from the last FROM), taking the package from
    the build context's dist/ instead of the build stage, which needs the Swift image from a registry."""
    lines = containerfile.splitlines()
    last = max(index for index, line in enumerate(lines) if line.startswith("FROM "))
    arguments = [line for line in lines[:lines.index(next(l for l in lines if l.startswith("FROM ")))] if line.startswith("ARG ")]
    stage = "\n".join(lines[last:])
    if "COPY --from=build /src/dist/ /tmp/dist/" not in stage:
        raise AssertionError("the Containerfile's runtime stage no longer copies the package from the build stage")
    return "\n".join(arguments) + "\n" + stage.replace("COPY --from=build /src/dist/ /tmp/dist/", "COPY dist/ /tmp/dist/") + "\n"


def base_image():
    """The containers' Debian base, debootstrapped once into podman's store (scripts/test makes it early, in the
    background: `test_package.py --base-image`)."""
    if subprocess.run(PODMAN + ["image", "exists", BASE]).returncode == 0:
        return
    folder = tempfile.mkdtemp(prefix="tvguide-base-")
    try:
        run(["debootstrap", "--variant=minbase", SUITE, folder, MIRROR])
        tar = subprocess.Popen(["tar", "-C", folder, "-c", "."], stdout=subprocess.PIPE)
        run(PODMAN + ["import", "-", BASE], stdin=tar.stdout)
        tar.wait()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("podman"), "needs root and podman")
class ContainerTests(unittest.TestCase):
    """The Containerfile's runtime stage built by podman on a Debian base debootstrapped here (what debian:bookworm-slim
    is), with the package from scripts/package, then run: as the tvguide user, serving the grid, healthy by its own
    health check, stopped by SIGTERM with exit status 0."""

    def test_the_image_runs_the_guide_as_tvguide(self):
        base_image()
        context = tempfile.mkdtemp(prefix="tvguide-image-")
        name = "tvguide-test-%d" % os.getpid()
        image = "localhost/tvguide-test:%d" % os.getpid()
        try:
            os.makedirs(os.path.join(context, "dist"))
            shutil.copy(newest("tvguide_*.deb"), os.path.join(context, "dist"))
            with open(os.path.join(ROOT, "Containerfile")) as file, open(os.path.join(context, "Containerfile"), "w") as out:
                out.write(runtime_stage(file.read()))
            run(PODMAN + ["build", "--format", "docker", "--isolation", "chroot", "--network", "host"] + LIMITS
                + ["--build-arg", "DEBIAN_IMAGE=" + BASE, "-t", image, "-f", os.path.join(context, "Containerfile"), context])
            self.assertEqual(run(PODMAN + ["image", "inspect", "--format", "{{.Config.User}}", image]).strip(), "tvguide")
            self.assertIn("/var/lib/tvguide", run(PODMAN + ["image", "inspect", "--format", "{{.Config.Volumes}}", image]))

            port = free_port()
            run(PODMAN + ["run", "-d", "--name", name, "--network", "host"] + LIMITS + ["-e", "TVGUIDE_PORT=%d" % port, image])
            page = None
            deadline = time.time() + 180
            while page is None and time.time() < deadline:
                try:
                    with urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=10) as answer:
                        page = answer.read().decode()
                except OSError:
                    time.sleep(0.5)
            self.assertIsNotNone(page, "the container never answered:\n" + run(PODMAN + ["logs", name]))
            self.assertIn('class="grid', page)
            self.assertEqual(run(PODMAN + ["exec", name, "id", "-un"]).strip(), "tvguide")
            # Its own health check, as the engine runs it.
            run(PODMAN + ["healthcheck", "run", name])
            run(PODMAN + ["stop", "--time", "60", name])
            self.assertEqual(run(PODMAN + ["inspect", "--format", "{{.State.ExitCode}}", name]).strip(), "0")
        finally:
            subprocess.run(PODMAN + ["rm", "--force", name], capture_output=True)
            subprocess.run(PODMAN + ["rmi", "--force", image], capture_output=True)
            shutil.rmtree(context, ignore_errors=True)


if __name__ == "__main__":
    # What the tests need from the network, made ahead (scripts/test, in the background): the containers' base, and
    # the clean root for the package in dist/.
    if sys.argv[1:] == ["--base-image"]:
        base_image()
    elif sys.argv[1:] == ["--root"]:
        debian_root(dependencies(newest("tvguide_*.deb")))
    else:
        unittest.main(verbosity=2)
