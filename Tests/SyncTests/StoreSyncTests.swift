@_spi(Operator) import Chronicle
import ChronicleTestSupport
import Foundation
import Testing

/// Sync as an app runs it, on the store alone: two devices running `runSync` in the
/// background, each following a query of the other's writes.
@Suite("Sync on the store", .timeLimit(.minutes(5)))
struct StoreSyncTests {
    @Test("two devices running runSync: a user created on one appears in the other's observed list, then its rename")
    func backgroundSyncFeedsObservedQueries() async throws {
        let server = try await TestServer.start(tokens: ["shared-token": "shared"])
        let folder = try TemporaryFolder("store-sync")
        defer { folder.remove() }
        let phone = try ChronicleStore(directory: folder.path + "/phone")
        let laptop = try ChronicleStore(directory: folder.path + "/laptop")
        var configuration = SyncConfiguration.testing(server.url, token: "shared-token")
        configuration.pullInterval = .milliseconds(20)
        let syncing = [Task { try await phone.runSync(configuration) }, Task { try await laptop.runSync(configuration) }]

        var users = laptop.observe(.users).makeAsyncIterator()
        #expect(try await users.next() == [])
        let ada = try await phone.createUser(name: "Ada", age: 36)
        // The laptop's list changes only through the pull: its first new value is the phone's user.
        #expect(try await users.next()?.map(\.id) == [ada.id])
        _ = try await phone.updateUser(ada.id, name: "Ada L.")
        #expect(try await users.next()?.map(\.name) == ["Ada L."])

        for task in syncing { task.cancel() }
        for task in syncing { try await task.value }
        #expect(try phone.syncStatus().pending == 0)
        // The library reads the same counters as `sync status --json`.
        #expect(try phone.syncStatus().counters.pushed == 2)
        #expect(try laptop.syncStatus().counters.pulled == 2)
        await phone.close()
        await laptop.close()
        try await server.stop()
    }
}
