import Foundation
import ChronicleLMDB

/// `hold`: opens a raw LMDB environment, begins a read or write transaction and keeps it
/// open until a line arrives on stdin (or the process is killed, which is the point: the
/// lock file then holds a reader slot or a write lock of a dead process).
enum Hold {
    static func run(_ raw: [String]) throws {
        let arguments = try Arguments(raw, flagNames: [])
        let path = try arguments.string("env")
        let kind = try arguments.string("txn")
        guard kind == "read" || kind == "write" else { throw UsageError("--txn must be read or write") }
        let maxReaders = try arguments.int("max-readers", default: 510)
        guard maxReaders >= 1 else { throw UsageError("--max-readers must be at least 1") }
        let database = arguments.optionalString("database")

        let environment = try Environment(path: path, options: .init(maxReaders: UInt32(maxReaders)))
        if kind == "read" {
            try environment.read { _ in
                Output.line("holding")
                _ = readLine()
            }
        } else {
            try environment.write { _ in
                Output.line("holding")
                _ = readLine()
            }
        }
        Output.line("released")
        // A fresh read after the release sees what others wrote meanwhile (adopting a map
        // another process grew).
        if let database {
            let entries = try environment.read { txn in try txn.count(try txn.openDatabase(named: database, create: false)) }
            Output.line("entries \(entries)")
        }
    }
}
