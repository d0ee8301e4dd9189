import Foundation
import GuideCore

/// Lines and columns for error messages: counted lazily, forward from the last offset asked about.
extension XMLTVReader {
    /// The line of `offset`, counting newlines forward from the last offset asked about (offsets only grow).
    mutating func lineNumber(at offset: Int, _ p: UnsafeBufferPointer<UInt8>) -> Int {
        line(at: offset, p)
    }

    /// Says that the next byte fed is on line `line` of the file, for a reader fed parts of one (a refresh reading
    /// only the days that changed) that reports each programme's line as the file has it.
    public mutating func continueAt(line: Int) {
        let unread = buffer[min(lineCursor, buffer.count)...].reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
        lineAtCursor = line - unread
    }

    mutating func line(at offset: Int, _ p: UnsafeBufferPointer<UInt8>) -> Int {
        guard offset > lineCursor, let base = p.baseAddress else { return lineAtCursor }
        var index = lineCursor
        var lines = lineAtCursor
        while index < offset, let found = memchr(base + index, 0x0A, offset - index) {
            lines += 1
            index = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
        }
        lineCursor = offset
        lineAtCursor = lines
        return lines
    }

    func column(at offset: Int, _ bytes: [UInt8]) -> Int {
        var index = offset
        while index > 0 {
            if bytes[index - 1] == 0x0A { return offset - index + 1 }
            index -= 1
        }
        return columnBase + offset
    }

    func location(_ offset: Int, _ p: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var copy = self
        let line = copy.line(at: offset, p)
        var index = offset
        while index > 0 {
            if p[index - 1] == 0x0A { return (line, offset - index + 1) }
            index -= 1
        }
        return (line, columnBase + offset)
    }

    func error(_ code: XMLTVError.Code, _ said: Sentence, at offset: Int, _ p: UnsafeBufferPointer<UInt8>) -> XMLTVError {
        let (line, column) = location(min(offset, p.count), p)
        return XMLTVError(code, said, line: line, column: column)
    }

    func error(_ code: XMLTVError.Code, saying text: String, _ values: [String: String] = [:], at offset: Int,
               _ p: UnsafeBufferPointer<UInt8>) -> XMLTVError {
        error(code, Sentence(saying: text, values), at: offset, p)
    }

    func error(_ code: XMLTVError.Code, saying text: String, _ values: [String: String] = [:], at offset: Int,
               in bytes: [UInt8]? = nil) -> XMLTVError {
        error(code, Sentence(saying: text, values), at: offset, in: bytes)
    }

    func error(_ code: XMLTVError.Code, _ said: Sentence, at offset: Int, in bytes: [UInt8]? = nil) -> XMLTVError {
        (bytes ?? buffer).withUnsafeBufferPointer { error(code, said, at: offset, $0) }
    }
}
