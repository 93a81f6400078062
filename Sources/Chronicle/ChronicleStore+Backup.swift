import ChronicleLog
import Foundation
import ChronicleLMDB

/// What a backup wrote.
public struct BackupSummary: Sendable, Equatable {
    /// The folder of the copy: a store of its own.
    public var directory: String
    /// The log's head in the copy (the stored entities' position is at most this).
    public var position: UInt64
}

extension ChronicleStore {
    /// Copies the whole store into `directory` (which must not exist, or be empty) while
    /// other tasks and processes keep writing: the copy is a store of its own, consistent
    /// at one position, that `verify --deep` accepts.
    ///
    /// The stored entities are copied first, then the log, each in one read transaction: the
    /// entities' position is then at most the copied log's head, never ahead of it (a copy of
    /// a log taken before its entities would have entities ahead of it), and the copy's
    /// entities catch up with the rest of its log when it is opened. The sync state lives in the log,
    /// so the copy knows what was pushed and pulled; it keeps the store's device id, so it is
    /// a backup to restore in place of the store, not a second device.
    ///
    /// ```swift
    /// let backup = try store.backup(to: "/backups/2026-11-23")
    /// print("copied up to position \(backup.position)")
    /// ```
    /// - throws: ``ChronicleError/notAStore(path:reason:)`` when `directory` holds something;
    ///   ``ChronicleError/storage(_:)`` when a copy fails (what was copied is removed).
    @discardableResult
    public func backup(to directory: String) throws -> BackupSummary {
        try requireOpen()
        return try ChronicleError.mapping { try copy(to: directory) }
    }

    private func copy(to directory: String) throws -> BackupSummary {
        guard !directory.isEmpty else { throw ChronicleError.notAStore(path: directory, reason: "the path is empty") }
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw ChronicleError.notAStore(path: directory, reason: "it is not a directory") }
            guard (try? files.contentsOfDirectory(atPath: directory))?.isEmpty == true else {
                throw ChronicleError.notAStore(path: directory, reason: "it is not empty: a backup goes into a new or empty folder")
            }
        }
        let (logCopy, entitiesCopy) = (directory + "/log", directory + "/entities")
        do {
            try files.createDirectory(atPath: logCopy, withIntermediateDirectories: true)
            try files.createDirectory(atPath: entitiesCopy, withIntermediateDirectories: true)
            try entityStates.copy(to: entitiesCopy)
            try log.environment.copy(to: logCopy)
            let copied = try EventLog(path: logCopy)
            defer { copied.close() }
            return BackupSummary(directory: directory, position: try copied.head())
        } catch {
            try? files.removeItem(atPath: logCopy)
            try? files.removeItem(atPath: entitiesCopy)
            throw error
        }
    }
}
