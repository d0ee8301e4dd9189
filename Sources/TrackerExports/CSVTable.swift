import Foundation

/// A CSV file as RFC 4180 writes it, and as the trackers' exports bend it: a byte-order mark, CRLF or LF line ends
/// (TV Time's anonymized files mix them), quoted fields with doubled quotes and line breaks inside, and a header row
/// whose names are read case- and space-insensitively (`Title Type`, `title_type`). Bounded: a field of at most
/// ``largestField`` bytes, ``mostColumns`` columns; a file that breaks them, or is not UTF-8, is refused with why.
struct CSVTable: Sendable {
    /// The header's names, folded (``fold(_:)``).
    let columns: [String]
    let rows: [[String]]
    /// The file's name, as problems name it.
    let file: String

    static let largestField = 64 * 1024
    static let mostColumns = 256

    init(_ bytes: [UInt8], file: String) throws(TrackerError) {
        self.file = file
        var data = bytes[...]
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data = data.dropFirst(3) }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw TrackerError(saying: "{file} is not UTF-8 text: save it as UTF-8 CSV", ["file": file])
        }
        var records: [[String]] = []
        var record: [String] = []
        var field: [UInt8] = []
        var quoted = false, wasQuoted = false
        var line = 1
        func endField() throws(TrackerError) {
            guard record.count < Self.mostColumns else {
                throw TrackerError(saying: "{file}, line {line}: more than {count} columns",
                                   ["file": file, "line": String(line), "count": String(Self.mostColumns)])
            }
            record.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            wasQuoted = false
        }
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            index += 1
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index < utf8.count, utf8[index] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\""), field.isEmpty, !wasQuoted {
                quoted = true
                wasQuoted = true
            } else if byte == UInt8(ascii: ",") {
                try endField()
            } else if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                if byte == UInt8(ascii: "\r"), index < utf8.count, utf8[index] == UInt8(ascii: "\n") { index += 1 }
                try endField()
                if !(record.count == 1 && record[0].isEmpty) { records.append(record) }
                record = []
                line += 1
            } else {
                field.append(byte)
            }
            guard field.count <= Self.largestField else {
                throw TrackerError(saying: "{file}, line {line}: a field longer than 64 KB", ["file": file, "line": String(line)])
            }
        }
        guard !quoted else { throw TrackerError(saying: "{file}, line {line}: a quoted field is never closed", ["file": file, "line": String(line)]) }
        if !field.isEmpty || !record.isEmpty {
            try endField()
            records.append(record)
        }
        guard let header = records.first else { throw TrackerError(saying: "{file} is empty", ["file": file]) }
        columns = header.map(Self.fold)
        rows = Array(records.dropFirst())
    }

    /// A header name as compared: lower case, spaces, hyphens and dots as underscores (`Title Type` is `title_type`).
    static func fold(_ name: String) -> String {
        String(name.trimmingCharacters(in: .whitespaces).lowercased().map { " -.".contains($0) ? "_" : $0 })
    }

    /// Whether the header has every one of `names` (folded).
    func has(_ names: String...) -> Bool {
        names.allSatisfy { columns.contains(Self.fold($0)) }
    }

    /// Each row as a lookup by column name: the first non-empty value of the names given, trimmed.
    func records() -> [Record] {
        let positions = Dictionary(columns.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        return rows.enumerated().map { Record(values: $1, positions: positions, line: $0 + 2) }
    }

    struct Record: Sendable {
        let values: [String]
        let positions: [String: Int]
        /// The row's line in the file (the header is line 1), for reports.
        let line: Int

        /// The first of `names` with a non-empty value.
        subscript(_ names: String...) -> String? {
            for name in names {
                if let position = positions[CSVTable.fold(name)], position < values.count {
                    let value = values[position].trimmingCharacters(in: .whitespaces)
                    if !value.isEmpty { return value }
                }
            }
            return nil
        }
    }
}
