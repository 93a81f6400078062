import ChronicleTestSupport
import Foundation
import ChronicleLMDB
@testable import ChronicleProjections
import Testing

/// The shortcut a batch's loads take: an id above every stored key cannot be stored.
struct StoredIDCeilingTests {
    static func id(_ last: UInt8, first: UInt8 = 0x01) -> UUID {
        UUID(uuid: (first, 0, 0, 0, 0, 0, 0x70, 0, 0x80, 0, 0, 0, 0, 0, 0, last))
    }

    @Test func onlyIdsAboveTheLargestKeyOfEveryDatabaseAreKnownAbsent() async throws {
        try await TemporaryFolder.with("ceiling") { path in
            let environment = try Environment(path: path)
            try environment.write { txn in
                let (shown, hidden, empty) = (try txn.openDatabase(named: "shown"), try txn.openDatabase(named: "hidden"),
                                              try txn.openDatabase(named: "empty"))
                #expect(try StoredIDCeiling(txn: txn, databases: [empty]).mayHold(Self.id(1)) == false)
                for (database, id) in [(shown, Self.id(5)), (shown, Self.id(9)), (hidden, Self.id(12))] {
                    try withUnsafeBytes(of: id.uuid) { key in try txn.put(database, key: key, value: UnsafeRawBufferPointer(rebasing: key[0..<1])) }
                }
                let ceiling = StoredIDCeiling(txn: txn, databases: [shown, hidden, empty])
                // At or below the largest key of any of them (12, in `hidden`): maybe; above it: no.
                #expect(try [1, 5, 10, 12, 13].map { try ceiling.mayHold(Self.id($0)) } == [true, true, true, true, false])
                // The first byte weighs most (the key's byte order).
                #expect(try ceiling.mayHold(Self.id(0, first: 0x02)) == false)
                #expect(try ceiling.mayHold(Self.id(0xFF, first: 0x00)) == true)
                #expect(try StoredIDCeiling(txn: txn, databases: [shown]).mayHold(Self.id(12)) == false)
            }
        }
    }
}
