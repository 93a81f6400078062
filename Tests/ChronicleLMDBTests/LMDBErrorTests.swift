import CLMDB
import Foundation
import ChronicleLMDB
import Testing

struct LMDBErrorTests {
    static let everyCase: [LMDBError] = [
        .keyExists, .notFound, .pageNotFound, .corrupted, .panic, .versionMismatch, .invalidFile, .mapFull,
        .databasesFull, .readersFull, .tlsFull, .transactionFull, .cursorFull, .pageFull, .mapResized,
        .incompatible, .badReaderSlot, .badTransaction, .badValueSize, .badDatabase,
    ]

    @Test(arguments: everyCase)
    func codeRoundTrips(error: LMDBError) {
        #expect(LMDBError(code: error.code) == error)
        #expect(error.code != MDB_SUCCESS)
    }

    @Test func everyLMDBCodeHasItsOwnCase() {
        #expect(Set(Self.everyCase.map(\.code)).count == Self.everyCase.count)
        #expect(LMDBError(code: MDB_MAP_FULL) == .mapFull)
        #expect(LMDBError(code: MDB_NOTFOUND) == .notFound)
        #expect(LMDBError(code: MDB_MAP_RESIZED) == .mapResized)
        #expect(LMDBError(code: MDB_READERS_FULL) == .readersFull)
    }

    @Test func systemErrorsKeepTheirErrno() {
        #expect(LMDBError(code: ENOSPC) == .system(ENOSPC))
        #expect(LMDBError.system(EACCES).code == EACCES)
        #expect(LMDBError.system(ENOSPC).description.contains("space"))
    }

    @Test func descriptionsAreOneReadableLine() {
        for error in Self.everyCase + [.system(ENOENT)] {
            #expect(!error.description.isEmpty)
            #expect(!error.description.contains("\n"))
        }
        #expect(LMDBError.corrupted.description.contains("damaged"))
        #expect(LMDBError.versionMismatch.description.contains("incompatible"))
        #expect(LMDBError.mapFull.description.hasPrefix("LMDB: "))
    }
}
