// A scripted session of a notes app on Chronicle, on a model of its own: two devices (a
// phone and a laptop) write offline, sync through a server, and end up showing the same
// notes. Every line it prints is what the app would show; the repository's tests read them.
//
//   Notebook <folder for the two stores> <server URL> <token>
import Chronicle
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4, let server = URL(string: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: Notebook <folder> <server URL> <token>\n".utf8))
    exit(2)
}
let phone = try ChronicleStore(directory: arguments[1] + "/phone", model: NotesModel.model)
let laptop = try ChronicleStore(directory: arguments[1] + "/laptop", model: NotesModel.model)
let remote = SyncConfiguration(remote: server, token: arguments[3])

/// Pushes what `device` wrote and pulls what the others did.
func sync(_ device: ChronicleStore) async throws {
    _ = try await device.push(remote)
    _ = try await device.pull(remote)
}

/// A value as the app prints it: text as it is, numbers as numbers.
func plain(_ value: ChronicleModel.FieldValue?) -> String {
    switch value {
    case .text(let text)?: text
    case .integer(let number)?: String(number)
    case .number(let number)?: String(number)
    case .boolean(let flag)?: String(flag)
    case .ids(let ids)?: ids.map(\.uuidString).joined(separator: ",")
    case .null?, nil: "-"
    }
}

/// The notes `device` shows, each as `title [folder] labels`, pinned ones marked.
func notes(on device: ChronicleStore) async throws -> [String] {
    let folders = Dictionary(uniqueKeysWithValues: try await device.entities("Folder").map { ($0.id, $0.text("name") ?? "") })
    let labels = Dictionary(uniqueKeysWithValues: try await device.entities("Label").map { ($0.id, $0.text("name") ?? "") })
    return try await device.entities("Note").map { note in
        let folder = note.reference("folderId").flatMap { folders[$0] }.map { " [\($0)]" } ?? ""
        let tags = note.members(of: "labels").compactMap { labels[$0] }.sorted().map { " #\($0)" }.joined()
        return (note.boolean("pinned") == true ? "📌 " : "") + (note.text("title") ?? "") + folder + tags
    }.sorted()
}

// The phone's screen follows its notes: the list now, then a new one after each change.
let screen = NotesScreen()
let following = Task { try await screen.follow(phone) }

// The phone, offline: a folder, a label, two notes.
let work = try await phone.create("Folder", ["name": "Work"])
let urgent = try await phone.create("Label", ["name": "urgent"])
let plan = try await phone.create("Note", ["title": "Plan the week", "day": "2026-12-01", "folderId": .id(work.id)])
_ = try await phone.create("Note", ["title": "Call the bank", "day": "2026-12-02", "labels": .ids(urgent.id), "cost": "2.50"])
_ = try await phone.create("Note", ["title": "Buy a lamp", "day": "2026-12-09", "cost": "39.90"])
_ = try await phone.update("Note", plan.id, ["pinned": true])
print("phone: \(try await notes(on: phone))")
await screen.waitUntilShown(["Buy a lamp", "Call the bank", "Plan the week"])

// A range query on the index of days, and the aggregate's rows for the same week.
let week = try await phone.entities("Note", where: "day", from: "2026-11-30", through: "2026-12-06")
print("this week: \(week.compactMap { $0.text("title") })")
let perDay = try await phone.rows("NotesPerDay", from: "2026-11-30", through: "2026-12-06")
print("per day: \(perDay.map { row in "\(plain(row.key)): \(plain(row.measures["notes"])) notes, \(plain(row.measures["spent"])) spent" })")

// One step: a folder and its first note, appended together; one undo takes both back.
_ = try await phone.perform { step in
    let travel = try step.create("Folder", ["name": "Travel"])
    return try step.create("Note", ["title": "Pack", "day": "2026-12-05", "folderId": .id(travel)])
}
print("step: \(try await notes(on: phone))")
try await phone.undo()
print("undo: \(try await notes(on: phone)), folders \(try await phone.entities("Folder").compactMap { $0.text("name") })")

// A rule of the model refuses a command with one line, and nothing is written.
do {
    _ = try await phone.create("Folder", ["name": " work "])
} catch ChronicleError.refused(let problem) {
    print("refused: \(problem)")
}

// Both devices sync; then each changes the same note offline, and each creates a folder "Home".
try await sync(phone)
try await sync(laptop)
print("laptop after sync: \(try await notes(on: laptop))")
_ = try await laptop.update("Note", plan.id, ["title": "Plan the month"])
_ = try await phone.update("Note", plan.id, ["title": "Plan the weekend", "body": "Mon: review, Tue: ship"])
_ = try await phone.create("Folder", ["name": "Home"])
_ = try await laptop.create("Folder", ["name": "home"])

// Synced again, they agree: each field keeps its last write in the server's order (the
// laptop's title, the phone's body), and the two "Home" folders are both kept, told apart.
for device in [phone, laptop, phone] { try await sync(device) }
let phoneNotes = try await notes(on: phone), laptopNotes = try await notes(on: laptop)
print("phone after sync: \(phoneNotes)")
print("laptop after sync: \(laptopNotes)")
print("folders: \(try await laptop.entities("Folder").compactMap { $0.text("name") }.sorted())")
print("same on both: \(phoneNotes == laptopNotes)")
// The phone's title reached the server first; the laptop's, written earlier, came after it
// and holds. The phone lists what the merge overruled of its writes.
for conflict in try await phone.conflicts() { print("phone's conflict: \(conflict.kind): \(conflict.detail.prefix(22))…") }

// Deleting the folder hides its notes; restoring it brings them back as they were.
try await laptop.delete("Folder", work.id)
print("after deleting Work: \(try await notes(on: laptop))")
_ = try await laptop.restore("Folder", work.id)
print("after restoring Work: \(try await notes(on: laptop))")
try await sync(laptop)
print("pending: \(try laptop.syncStatus().pending)")

await screen.waitUntilShown(["Buy a lamp", "Call the bank", "Plan the month"])
following.cancel()
let seen = await screen.values
print("screen: \(seen.count) lists, the last \(await screen.history.last ?? []), "
      + "none the same as the one before: \(zip(seen, seen.dropFirst()).allSatisfy { $0 != $1 })")
await phone.close()
await laptop.close()

// The app's next version opens the same store: the renamed field reads from every event
// written before, and the new field has its default.
let upgraded = try ChronicleStore(directory: arguments[1] + "/laptop", model: NotesModel.version2)
let planned = try await upgraded.entities("Note", where: "day", equals: "2026-12-01").first
print("version 2: headline \(plain(planned?.values["headline"])), archived \(plain(planned?.values["archived"]))")
await upgraded.close()

/// What a screen listing the notes keeps: each list it was given, in order, and its titles.
actor NotesScreen {
    private(set) var values: [[ChronicleModel.EntityState]] = []
    private(set) var history: [[String]] = []
    private var waiters: [(titles: [String], continuation: CheckedContinuation<Void, Never>)] = []

    func follow(_ store: ChronicleStore) async throws {
        for try await notes in store.observe(.entities("Note")) {
            let titles = notes.compactMap { $0.text("title") }.sorted()
            values.append(notes)
            history.append(titles)
            waiters.removeAll { waiter in
                guard waiter.titles == titles else { return false }
                waiter.continuation.resume()
                return true
            }
        }
    }

    /// Returns once the screen shows `titles`.
    func waitUntilShown(_ titles: [String]) async {
        if history.last == titles { return }
        await withCheckedContinuation { waiters.append((titles, $0)) }
    }
}
