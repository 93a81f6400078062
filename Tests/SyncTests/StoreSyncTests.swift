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

    @Test("runSync waits on the server: the phone's write reaches the laptop's observed list while its pull waits, with no interval to wait out")
    func observedChangeArrivesWhileWaiting() async throws {
        let server = try await TestServer.start(tokens: ["shared-token": "shared"])
        let folder = try TemporaryFolder("store-sync-wait")
        defer { folder.remove() }
        let phone = try ChronicleStore(directory: folder.path + "/phone")
        let laptop = try ChronicleStore(directory: folder.path + "/laptop")
        var configuration = SyncConfiguration.testing(server.url, token: "shared-token")
        // Only a pull waiting on the server can bring the write before these hour-long intervals.
        configuration.pullInterval = .seconds(3600)
        configuration.pollInterval = .seconds(3600)
        configuration.pullWait = .seconds(60)
        var users = laptop.observe(.users).makeAsyncIterator()
        #expect(try await users.next() == [])
        let laptopSync = Task { try await laptop.runSync(configuration) }
        // The laptop's run loop pulled once at its start; now its pull waits on the server.
        try await withTimeout(.seconds(60), "the laptop's pull waiting") {
            while server.running.server.api.waiters.count < 1 { try await Task.sleep(for: .milliseconds(10)) }
        }
        let phoneSync = Task { try await phone.runSync(configuration) }
        let started = ContinuousClock.now
        let ada = try await phone.createUser(name: "Ada", age: 36)
        #expect(try await users.next()?.map(\.id) == [ada.id])
        let took = ContinuousClock.now - started
        #expect(took < .seconds(45), "arrived after \(took), the pull's wait being 60 s")
        _ = try await phone.updateUser(ada.id, name: "Ada L.")
        #expect(try await users.next()?.map(\.name) == ["Ada L."])

        for task in [phoneSync, laptopSync] { task.cancel() }
        for task in [phoneSync, laptopSync] { try await task.value }
        #expect(try laptop.syncStatus().counters.pulled == 2)
        await phone.close()
        await laptop.close()
        try await server.stop()
    }
}
