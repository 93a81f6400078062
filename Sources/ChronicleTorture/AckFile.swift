import Foundation
import Synchronization

/// The durable record of what the writer saw acknowledged: one `position id` line per
/// event, written and fsynced only after the append returned. A test that kills the
/// process reads it back and expects every line's event in the store.
final class AckFile: Sendable {
    private let handle: Mutex<FileHandle?>

    /// Creates (or truncates) the file at `path`; `nil` writes nowhere.
    init(path: String?) throws {
        guard let path else {
            handle = Mutex(nil)
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw UsageError("cannot create the ack file \(path)")
        }
        handle = Mutex(try FileHandle(forWritingTo: URL(fileURLWithPath: path)))
    }

    /// Appends the lines and waits until they are on disk.
    func record(_ lines: [String]) throws {
        guard !lines.isEmpty else { return }
        let data = Data(lines.map { $0 + "\n" }.joined().utf8)
        try handle.withLock { handle in
            guard let handle else { return }
            try handle.write(contentsOf: data)
            guard fsync(handle.fileDescriptor) == 0 else {
                throw UsageError("fsync of the ack file failed (errno \(errno))")
            }
        }
    }
}

/// Unbuffered lines on stdout, so a parent reading the pipe sees each one at once.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data("error: \(text)\n".utf8))
    }
}
