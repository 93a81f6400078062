import Foundation

/// A fresh, empty folder under the system's temporary directory for a test's files, named
/// `chronicle-<name>-<random>` so a folder left behind by a crashed run says whose it was.
///
/// Two forms:
/// - scoped: ``with(_:_:)`` creates the folder, runs a closure with its path and removes it
///   whatever happens (a return, a thrown error, a failed expectation);
/// - a value: ``init(_:)`` creates it, ``remove()`` removes it, for a folder whose lifetime is
///   not one closure (a server's data folder, a fixture that hands the folder to its body).
///
/// ```swift
/// try await TemporaryFolder.with("crash") { path in … }
///
/// let folder = try TemporaryFolder("server")
/// defer { folder.remove() }
/// let data = folder.appending("data")
/// ```
public struct TemporaryFolder: Sendable, Hashable, CustomStringConvertible {
    /// The folder's absolute path.
    public let path: String

    /// Creates `chronicle-<name>-<8 random hex digits>` under the temporary directory.
    /// - Throws: when the folder cannot be created (including when one of that name exists).
    public init(_ name: String) throws {
        let random = UUID().uuidString.prefix(8).lowercased()
        path = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-\(name)-\(random)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }

    /// The path of `component` (a name, or a relative path such as `data/tenants`) inside the folder.
    public func appending(_ component: String) -> String {
        URL(fileURLWithPath: path, isDirectory: true).appendingPathComponent(component).path
    }

    /// The folder as a file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// Removes the folder and everything in it; a folder already gone is no error.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    public var description: String { path }

    /// Creates a folder named after `name`, runs `body` with its path, and removes the folder
    /// when `body` returns or throws.
    @discardableResult
    public static func with<T>(_ name: String, _ body: (String) async throws -> T) async throws -> T {
        let folder = try TemporaryFolder(name)
        defer { folder.remove() }
        return try await body(folder.path)
    }
}
