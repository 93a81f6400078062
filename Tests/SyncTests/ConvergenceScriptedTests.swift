import Chronicle
import ChronicleSync
import ChronicleTodoDomain
import Foundation
import Testing

/// Fixed scenarios of the convergence suite, with faults off: the proxy passes requests
/// through unchanged, and the merge rules decide concurrent edits as promised.
extension ConvergencePropertyTests {
    @Test("with faults off the proxy answers what the server answers: status, body, for health, pulls and refusals")
    func proxyPassesThrough() async throws {
        let cluster = try await SyncCluster.start(seed: 0, probability: 0)
        do {
            let a = try await cluster.addDevice("A")
            try await a.store.createUser(name: "Ada", age: 36)
            try await cluster.expectComplete(a.engine.push(), "A's push")
            let proxy = HTTP(base: cluster.proxy.url), server = cluster.server.http
            for (path, token) in [("healthz", nil), ("v1/events?after=0&limit=5", SyncCluster.token),
                                  ("v1/events?after=0&limit=5", "wrong-token"), ("v1/events?after=x", SyncCluster.token)] {
                let viaProxy = try await proxy.request("GET", path, token: token)
                let direct = try await server.request("GET", path, token: token)
                #expect(viaProxy.status == direct.status, "GET \(path)")
                #expect(viaProxy.text == direct.text, "GET \(path)")
                #expect(viaProxy.headers["content-type"] == direct.headers["content-type"], "GET \(path)")
            }
            #expect(cluster.proxy.faults.played.isEmpty)
        } catch {
            Issue.record(error)
        }
        await cluster.shutdown()
    }

    @Test("a tag renamed offline into a name a pulled tag has keeps its \" (2)\" when a pulled recolor refolds it")
    func suffixSurvivesARefold() async throws {
        // Found by the referee on a random seed: the refold of the renamed tag showed it as
        // "HOME" beside "home" on B, while every other device showed "HOME (2)".
        let cluster = try await SyncCluster.start(seed: 0, probability: 0)
        do {
            let a = try await cluster.addDevice("A"), b = try await cluster.addDevice("B"), c = try await cluster.addDevice("C")
            let renamed = try await a.store.createTag(name: "work", color: "#ff8800")
            try await cluster.expectComplete(a.engine.push(), "A's push")
            try await cluster.expectComplete(b.engine.pull(), "B's pull")
            try await c.store.createTag(name: "home", color: "#00aa00")
            try await cluster.expectComplete(c.engine.push(), "C's push")
            _ = try await b.store.updateTag(renamed.id, name: "HOME")
            try await cluster.expectComplete(b.engine.pull(), "B's pull of C's tag")
            try await b.store.refresh()
            #expect(try await b.store.tag(renamed.id)?.name == "HOME (2)", "B's own rename ranks after the pulled tag")
            _ = try await a.store.updateTag(renamed.id, color: "#123abc")
            try await cluster.expectComplete(a.engine.push(), "A's recolor")
            try await cluster.expectComplete(b.engine.pull(), "B's pull of A's recolor")
            try await b.store.refresh()
            #expect(try await b.store.tag(renamed.id)?.name == "HOME (2)", "after the refold")
            #expect(try await cluster.syncUntilQuiet() == [])
            #expect(try await cluster.refereeProblems() == [])
            #expect(try await cluster.convergenceProblems() == [])
        } catch {
            Issue.record(error)
        }
        await cluster.shutdown()
    }

    @Test("two devices retitle the same todo offline; A pushes, then B: after pulling, both show B's title")
    func concurrentTitlesLastPushWins() async throws {
        let cluster = try await SyncCluster.start(seed: 0, probability: 0)
        do {
            let a = try await cluster.addDevice("A"), b = try await cluster.addDevice("B")
            let todo = try await a.store.createTodo(title: "Original", deadline: "2026-12-01")
            try await cluster.expectComplete(a.engine.push(), "A's first push")
            try await cluster.expectComplete(b.engine.pull(), "B's first pull")
            try await b.store.refresh()
            #expect(try await b.store.todo(todo.id)?.title == "Original")

            try await a.store.updateTodo(todo.id, title: "Title from A")
            try await b.store.updateTodo(todo.id, title: "Title from B")
            try await cluster.expectComplete(a.engine.push(), "A's push")
            try await cluster.expectComplete(b.engine.push(), "B's push")
            try await cluster.expectComplete(a.engine.pull(), "A's pull")
            try await cluster.expectComplete(b.engine.pull(), "B's pull")

            for device in [a, b] {
                try await device.store.refresh()
                let titles = try await device.store.todos().map(\.title)
                #expect(titles == ["Title from B"], "device \(device.name) shows \(titles)")
            }
        } catch {
            Issue.record(error)
        }
        await cluster.shutdown()
    }

    @Test("two devices create tags \"Work\" and \"work\" offline; A pushes, then B: both list both, B's as \"work (2)\"")
    func collidingTagNamesBothKept() async throws {
        let cluster = try await SyncCluster.start(seed: 0, probability: 0)
        do {
            let a = try await cluster.addDevice("A"), b = try await cluster.addDevice("B")
            let work = try await a.store.createTag(name: "Work", color: "#ff8800")
            let lower = try await b.store.createTag(name: "work", color: "#000000")
            try await cluster.expectComplete(a.engine.push(), "A's push")
            try await cluster.expectComplete(b.engine.push(), "B's push")
            try await cluster.expectComplete(a.engine.pull(), "A's pull")
            try await cluster.expectComplete(b.engine.pull(), "B's pull")

            let expected = [ChronicleTodoDomain.Tag(id: work.id, name: "Work", color: "#ff8800"), ChronicleTodoDomain.Tag(id: lower.id, name: "work (2)", color: "#000000")]
            for device in [a, b] {
                try await device.store.refresh()
                let tags = try await device.store.tags()
                #expect(tags == expected, "device \(device.name) lists \(tags.map(\.name)): \(ModelRendering.tags(tags))")
            }
        } catch {
            Issue.record(error)
        }
        await cluster.shutdown()
    }

    @Test("A deletes a user while B, offline, creates a todo for that user: after sync no device shows a live todo naming the user")
    func deletedUserHasNoLiveTodos() async throws {
        let cluster = try await SyncCluster.start(seed: 0, probability: 0)
        do {
            let a = try await cluster.addDevice("A"), b = try await cluster.addDevice("B")
            let ada = try await a.store.createUser(name: "Ada", age: 36)
            try await cluster.expectComplete(a.engine.push(), "A's first push")
            try await cluster.expectComplete(b.engine.pull(), "B's first pull")
            try await b.store.refresh()
            #expect(try await b.store.user(ada.id) != nil, "B must know Ada before going offline")

            try await a.store.deleteUser(ada.id)
            let todo = try await b.store.createTodo(title: "For Ada", deadline: "2026-12-01", userId: ada.id)
            try await cluster.expectComplete(a.engine.push(), "A's push")
            try await cluster.expectComplete(b.engine.push(), "B's push")
            let problems = try await cluster.syncUntilQuiet()
            #expect(problems.isEmpty, "\(problems)")

            for device in [a, b] {
                try await device.store.refresh()
                let todos = try await device.store.todos()
                let naming = todos.filter { $0.userId == ada.id }
                #expect(naming.isEmpty, "device \(device.name) shows live todos of deleted user Ada: \(ModelRendering.todos(naming))")
                #expect(try await device.store.todo(todo.id) == nil, "device \(device.name) still shows B's todo for Ada")
                #expect(try await device.store.users().isEmpty, "device \(device.name) still shows users")
                #expect(try await device.store.stats().isEmpty, "device \(device.name) counts todos in its stats")
            }
        } catch {
            Issue.record(error)
        }
        await cluster.shutdown()
    }
}
