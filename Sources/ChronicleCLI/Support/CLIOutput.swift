import ArgumentParser
import Foundation

/// Where the CLI writes: results to stdout, errors and progress to stderr.
enum CLIOutput {
    /// One `error: …` line on stderr.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    }

    /// A line on stderr (progress, narration of long operations).
    static func note(_ message: String) {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }

    /// A line on stdout.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Rewrites the current stderr line (progress bars).
    static func progress(_ text: String) {
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
    }

    static func isArgumentParserError(_ error: any Error) -> Bool {
        String(reflecting: type(of: error)).contains("ArgumentParser")
    }

    /// Formats rows as a left-aligned table with a header.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        func render(_ row: [String]) -> String {
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return ([render(header)] + rows.map(render)).joined(separator: "\n")
    }
}
