import ArgumentParser
import Chronicle
import ChronicleSync
import ChronicleTodoDomain
import Foundation

extension DemoCommand {
    /// The two-device part of the story: a second device pulls everything, both edit the same
    /// todo offline and name a tag alike, both sync, and both end with the same state, the
    /// merge's overrulings listed. Returns whether the two devices agree.
    func twoDevices(phone: ChronicleStore, root: String, server: URL, token: String) async throws -> Bool {
        let laptop = try ChronicleStore(directory: root + "/laptop")
        defer { Task { await laptop.close() } }
        let configuration = SyncConfiguration(remote: server, token: token)
        step("A second device, the laptop (\(root)/laptop), pulls everything.")
        let first = try await laptop.pull(configuration)
        say("pulled \(first.stored) events; the laptop shows \(try await laptop.todos().count) todos, like the phone")

        guard let compiler = try await phone.todos().first(where: { $0.title.hasPrefix("Finish the A-0") }) else {
            throw ValidationError("the demo's todo is missing")
        }
        step("Both go offline and edit: the laptop first, then the phone, retitle the same todo; each creates a tag named \"work\".")
        try await laptop.updateTodo(compiler.id, title: "Finish the A-0 compiler (laptop)")
        _ = try await laptop.createTag(name: "work", color: "#3366cc")
        try await phone.updateTodo(compiler.id, title: "Finish the A-0 compiler (phone)")
        _ = try await phone.createTag(name: "Work", color: "#cc3333")
        say("phone:  \"\(try await title(compiler.id, phone))\"")
        say("laptop: \"\(try await title(compiler.id, laptop))\"")

        step("The phone syncs first, then the laptop, then the phone pulls again.")
        _ = try await phone.push(configuration)
        _ = try await phone.pull(configuration)
        _ = try await laptop.push(configuration)
        _ = try await laptop.pull(configuration)
        _ = try await phone.pull(configuration)
        say("the later write in the server's order wins: both show \"\(try await title(compiler.id, phone))\"")
        say("tags on both: \(try await phone.tags().map { "\"\($0.name)\"" }.joined(separator: ", "))")
        for (name, device) in [("phone", phone), ("laptop", laptop)] {
            let conflicts = try await device.conflicts()
            say("conflicts on the \(name): \(conflicts.isEmpty ? "none" : String(conflicts.count))")
            for conflict in conflicts { say("  \(conflict.stream)  \(conflict.kind): \(conflict.detail)") }
        }
        let same = try await Self.snapshot(phone) == Self.snapshot(laptop)
        step("The phone and the laptop show the same users, todos, tags and stats: \(same ? "yes" : "NO")")
        return same
    }

    private func title(_ id: UUID, _ store: ChronicleStore) async throws -> String {
        try await store.todo(id)?.title ?? "(gone)"
    }

    /// Users, todos, tags and stats as JSON, for comparing devices.
    private static func snapshot(_ store: ChronicleStore) async throws -> [Data] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return [try encoder.encode(try await store.users()), try encoder.encode(try await store.todos()),
                try encoder.encode(try await store.tags()), try encoder.encode(try await store.stats())]
    }
}
