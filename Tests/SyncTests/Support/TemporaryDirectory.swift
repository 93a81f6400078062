import Foundation

/// A fresh folder under the system temporary directory, removed by ``remove()``.
struct TemporaryDirectory: Sendable {
    let path: String

    init(_ name: String = "sync") throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("chronicle-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func appending(_ component: String) -> String { (path as NSString).appendingPathComponent(component) }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
