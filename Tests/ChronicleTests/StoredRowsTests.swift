@_spi(Operator) import Chronicle
import ChronicleTestSupport
import Foundation
import ChronicleProjections
import Testing

/// An aggregate's rows are stored and kept up as entities change (`StoredAggregateRow`): every
/// figure here is worked out by hand, not by the fold.
@Suite("an aggregate's stored rows", .timeLimit(.minutes(2)))
struct StoredRowsTests {
    typealias Row = ChronicleModel.AggregateRow

    /// Entries in accounts, counted and summed per category.
    static let ledger: ChronicleModel = {
        do {
            return try ChronicleModel("ledger", version: 1) { model in
                model.entity("Account") { account in account.text("name", .notBlank) }
                model.entity("Entry") { entry in
                    entry.text("category", .notBlank)
                    entry.number("amount")
                    entry.integer("units", default: .integer(0))
                    entry.decimal("price", optional: true)
                    entry.boolean("flagged", default: .boolean(false))
                    entry.reference("accountId", to: "Account", optional: true, onParentDeletion: .hideWithParent)
                }
                model.aggregate("PerCategory", of: "Entry", groupedBy: "category") { row in
                    row.count("entries")
                    row.count("flagged", where: "flagged")
                    row.sum("total", of: "amount")
                    row.sum("units", of: "units")
                    row.sum("price", of: "price")
                }
            }
        } catch {
            preconditionFailure("the ledger model is declared wrong: \(error)")
        }
    }()

    static func row(_ category: String, entries: Int, flagged: Int = 0, total: Double, units: Int, price: String = "0") -> Row {
        Row(key: .text(category), measures: ["entries": .integer(entries), "flagged": .integer(flagged),
                                             "total": .number(total), "units": .integer(units), "price": .text(price)])
    }

    @Test("rows follow creations, updates, moves, deletions and a parent's deletion; sums of numbers are exact")
    func rowsFollowChanges() async throws {
        let folder = try TemporaryFolder("rows")
        defer { folder.remove() }
        let store = try ChronicleStore(directory: folder.path + "/store", backgroundProjections: false,
                                       logOptions: .init(noSync: true), model: Self.ledger)
        let account = try await store.create("Account", ["name": .text("home")])
        let accountID = ChronicleModel.FieldValue.text(account.id.uuidString)
        let milk = try await store.create("Entry", ["category": .text("food"), "amount": .number(0.1), "units": .integer(2),
                                                    "price": .text("1.10"), "accountId": accountID])
        let bread = try await store.create("Entry", ["category": .text("food"), "amount": .number(0.2), "units": .integer(3),
                                                     "flagged": .boolean(true), "accountId": accountID])
        _ = try await store.create("Entry", ["category": .text("rent"), "amount": .number(500)])
        // 0.1 + 0.2 is 0.3, not 0.30000000000000004.
        #expect(try await store.rows("PerCategory") == [Self.row("food", entries: 2, flagged: 1, total: 0.3, units: 5, price: "1.1"),
                                                         Self.row("rent", entries: 1, total: 500, units: 0)])

        // Taking a share away leaves what summing the rest gives.
        _ = try await store.update("Entry", milk.id, ["amount": .number(0.7)])
        #expect(try await store.rows("PerCategory", through: .text("food"))
                == [Self.row("food", entries: 2, flagged: 1, total: 0.9, units: 5, price: "1.1")])

        // The account's deletion hides its entries, and their shares; its restoration brings them back.
        try await store.delete("Account", account.id)
        #expect(try await store.rows("PerCategory") == [Self.row("rent", entries: 1, total: 500, units: 0)])
        try await store.restore("Account", account.id)
        #expect(try await store.rows("PerCategory").count == 2)

        // A move takes the share from one row to the other; a row with no entity left is gone.
        _ = try await store.update("Entry", bread.id, ["category": .text("rent")])
        try await store.delete("Entry", milk.id)
        let expected = [Self.row("rent", entries: 2, flagged: 1, total: 500.2, units: 3)]
        #expect(try await store.rows("PerCategory") == expected)

        // Opened again, and folded again from the log, the rows are the same.
        await store.close()
        let again = try ChronicleStore(directory: folder.path + "/store", backgroundProjections: false,
                                       logOptions: .init(noSync: true), model: Self.ledger)
        #expect(try await again.rows("PerCategory") == expected)
        let rebuilt = try ModelStates(path: folder.path + "/rebuilt", model: Self.ledger, log: again.log, noSync: true)
        try rebuilt.rebuild()
        #expect(try rebuilt.rows(of: "PerCategory", from: nil, through: nil) == expected)
        await again.close()
    }

    @Test("one key asked for is its row alone, found by its spelling; ranges end at the first key past them")
    func oneKeyAndRanges() async throws {
        let folder = try TemporaryFolder("rows-one-key")
        defer { folder.remove() }
        let store = try ChronicleStore(directory: folder.path + "/store", backgroundProjections: false,
                                       logOptions: .init(noSync: true), model: Self.ledger)
        // "cafe" and "café" (é precomposed) are rows of their own; so are "b" and "ba".
        for (category, count) in [("b", 1), ("ba", 2), ("cafe", 3), ("caf\u{E9}", 4), ("d", 5)] {
            for _ in 0..<count { _ = try await store.create("Entry", ["category": .text(category), "amount": .number(1)]) }
        }
        func entries(_ lower: String?, _ upper: String?) async throws -> [String] {
            try await store.rows("PerCategory", from: lower.map { .text($0) }, through: upper.map { .text($0) }).map { row in
                guard case .text(let key) = row.key, case .integer(let count)? = row.measures["entries"] else { return "?" }
                return "\(key)=\(count)"
            }
        }
        #expect(try await entries("ba", "ba") == ["ba=2"])
        #expect(try await entries("b", "b") == ["b=1"])
        #expect(try await entries("c", "c") == [])
        #expect(try await entries("caf\u{E9}", "caf\u{E9}") == ["caf\u{E9}=4"])
        #expect(try await entries("b", "c") == ["b=1", "ba=2"])
        #expect(try await entries("b", "cafe") == ["b=1", "ba=2", "cafe=3"])
        #expect(try await entries("bb", "d") == ["cafe=3", "caf\u{E9}=4", "d=5"])
        #expect(try await entries(nil, "ba") == ["b=1", "ba=2"])
        #expect(try await entries("d", nil) == ["d=5"])
        #expect(try await entries("e", nil) == [])
        await store.close()
    }

    @Test("long keys that share their first 300 bytes keep rows of their own, and ranges find each")
    func longKeys() async throws {
        let folder = try TemporaryFolder("rows-long")
        defer { folder.remove() }
        let store = try ChronicleStore(directory: folder.path + "/store", backgroundProjections: false,
                                       logOptions: .init(noSync: true), model: Self.ledger)
        let shared = String(repeating: "k", count: 350)
        let keys = [shared + "b", shared + "a", shared + "c", "a", "z"]
        for (index, key) in keys.enumerated() {
            for _ in 0...index { _ = try await store.create("Entry", ["category": .text(key), "amount": .integer(1)]) }
        }
        let all = try await store.rows("PerCategory")
        #expect(all.map(\.key) == ["a", shared + "a", shared + "b", shared + "c", "z"].map { .text($0) })
        #expect(all.map { $0.measures["entries"] } == [4, 2, 1, 3, 5].map { .integer($0) })
        #expect(all.map { $0.measures["total"] } == [4, 2, 1, 3, 5].map { .number(Double($0)) })
        #expect(try await store.rows("PerCategory", from: .text(shared + "b"), through: .text(shared + "b")).map(\.key) == [.text(shared + "b")])
        #expect(try await store.rows("PerCategory", from: .text(shared + "a"), through: .text(shared + "b")).map(\.key)
                == [.text(shared + "a"), .text(shared + "b")])
        #expect(try await store.rows("PerCategory", from: .text("b"), through: .text(shared + "c")).map(\.key)
                == [.text(shared + "a"), .text(shared + "b"), .text(shared + "c")])
        await store.close()
    }
}
