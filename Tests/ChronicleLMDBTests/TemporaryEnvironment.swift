import Foundation
import ChronicleLMDB

/// Runs `body` with a fresh environment in its own temporary folder, removed afterwards.
@discardableResult
func withTemporaryEnvironment<T>(_ options: Environment.Options = Environment.Options(),
                                 _ body: (Environment, String) throws -> T) throws -> T {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("chronicle-lmdb-tests-\(UUID().uuidString.lowercased())").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    // The environment is closed (deinit) before the folder is removed.
    return try { () throws -> T in
        let environment = try Environment(path: path, options: options)
        return try body(environment, path)
    }()
}

/// `value` as 8 big-endian bytes (keys that sort numerically).
func bigEndianKey(_ value: UInt64) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

/// The bytes of a buffer LMDB handed out (copy them before the transaction ends).
func bytes(_ buffer: UnsafeRawBufferPointer?) -> [UInt8]? { buffer.map { Array($0) } }
