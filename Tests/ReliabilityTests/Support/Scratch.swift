import Foundation

/// A fresh folder under the temporary directory for one test, removed when its body ends.
enum Scratch {
    @discardableResult
    static func with<T>(_ name: String, _ body: (String) async throws -> T) async throws -> T {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("chronicle-reliability-\(name)-\(UUID().uuidString.prefix(8).lowercased())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }

    /// A copy of the folder `source` at `destination` (which must not exist).
    static func copy(_ source: String, to destination: String) throws {
        try FileManager.default.copyItem(atPath: source, toPath: destination)
    }
}

/// A failure inside a helper thread, carried back to the test.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
