@_spi(Operator) import Chronicle
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import Testing
import ChronicleTestSupport

@Suite("ChronicleStore tags", .timeLimit(.minutes(5)))
struct ChronicleStoreTagTests {
    @Test("created tags are trimmed, colors stored lowercase, listed by case-folded name")
    func createAndList() async throws {
        let t = try TemporaryStore()
        let names = ["STRASSE", "  Banana ", "cherry", "Straßburg", "apple", "Strand"]
        var created: [ChronicleTodoDomain.Tag] = []
        for name in names { created.append(try await t.store.createTag(name: name, color: "#A1b2C3")) }
        let banana = created[1]
        #expect(banana.name == "Banana" && banana.color == "#a1b2c3")
        #expect(try await t.store.tag(banana.id) == banana)
        // Folded: apple, banana, cherry, strand, strassburg, strasse (a byte or lowercased() order differs).
        #expect(try await t.store.tags().map(\.name) == ["apple", "Banana", "cherry", "Strand", "Straßburg", "STRASSE"])
        #expect(Set(try await t.store.tags()) == Set(created))

        let events = try t.store.log.read(stream: TodoAppEvent.tagStream(banana.id))
        #expect(events.map(\.type) == ["TagCreated"])
        let data = try #require(events.first?.data)
        #expect(String(decoding: data, as: UTF8.self) == ##"{"color":"#a1b2c3","name":"Banana"}"##)
        await t.cleanup()
    }

    @Test("tags whose folded names are equal: the later is shown with ' (2)', sorted as shown")
    func idTieBreak() async throws {
        let t = try TemporaryStore()
        // Only events that bypass the store's name claim (appended to the log directly) can do this.
        let high = try #require(UUID(uuidString: "0193a1b2-7c3d-7e4f-8a9b-ffffffffffff"))
        let low = try #require(UUID(uuidString: "0193a1b2-7c3d-7e4f-8a9b-000000000001"))
        for (id, name) in [(high, "Twin"), (low, "TWIN")] {
            let event = TodoAppEvent.tagCreated(id: id, name: name, color: "#000000")
            try await t.store.log.append(to: event.stream, expected: .noStream,
                                         events: [NewEvent(type: event.type, data: event.encodedData())])
        }
        _ = try await t.store.createTag(name: "Alpha", color: "#111111")
        _ = try await t.store.createTag(name: "zulu", color: "#222222")
        #expect(try await t.store.tags().map(\.name) == ["Alpha", "Twin", "TWIN (2)", "zulu"])
        #expect(try await t.store.tags().map(\.id)[1...2] == [high, low])
        await t.cleanup()
    }

    @Test("a name taken by a live tag is refused whatever its case or folding",
          arguments: [("Work", "work"), ("Work", "WORK"), ("work", " wOrK "), ("Straße", "STRASSE"),
                      ("STRASSE", "straße"), ("Straße", "STRAẞE"), ("ΣΑΣ", "σας"), ("Café", "CAFE\u{301}"),
                      ("ﬁle", "FILE")])
    func duplicateNames(first: String, second: String) async throws {
        let t = try TemporaryStore()
        let holder = try await t.store.createTag(name: first, color: "#000000")
        try await expectRejection(.duplicateTagName(second.trimmingCharacters(in: .whitespaces)), t) {
            _ = try await t.store.createTag(name: second, color: "#ffffff")
        }
        let other = try await t.store.createTag(name: "Other", color: "#000000")
        try await expectRejection(.duplicateTagName(second.trimmingCharacters(in: .whitespaces)), t) {
            _ = try await t.store.updateTag(other.id, name: second)
        }
        #expect(try await t.store.tags() == [other, holder].sorted { ChronicleTodoDomain.Tag.foldedName($0.name) < ChronicleTodoDomain.Tag.foldedName($1.name) })
        await t.cleanup()
    }

    @Test("names that differ beyond case are distinct tags")
    func distinctNames() async throws {
        let t = try TemporaryStore()
        for name in ["Work", "Wörk", "Works", "Work 2", "Strase", "ı"] {
            _ = try await t.store.createTag(name: name, color: "#000000")
        }
        // Dotless ı does not fold to i under the default (non-Turkic) folding.
        _ = try await t.store.createTag(name: "I", color: "#000000")
        #expect(try await t.store.tags().count == 7)
        await t.cleanup()
    }

    @Test("a rename to another case of its own name is fine; to another live tag's name it is refused")
    func renames() async throws {
        let t = try TemporaryStore()
        let work = try await t.store.createTag(name: "Work", color: "#000000")
        let home = try await t.store.createTag(name: "Home", color: "#ffffff")

        let shouted = try await t.store.updateTag(work.id, name: "WORK")
        #expect(shouted == ChronicleTodoDomain.Tag(id: work.id, name: "WORK", color: "#000000"))
        #expect(try await t.store.tag(work.id) == shouted)
        #expect(try t.store.log.read(stream: TodoAppEvent.tagStream(work.id)).map(\.type) == ["TagCreated", "TagUpdated"])
        _ = try await t.store.updateTag(work.id, name: " work ")
        #expect(try await t.store.tag(work.id)?.name == "work")

        try await expectRejection(.duplicateTagName("HOME"), t) { _ = try await t.store.updateTag(work.id, name: "HOME") }
        try await expectRejection(.duplicateTagName("work"), t) { _ = try await t.store.updateTag(home.id, name: "work") }
        try await expectRejection(.duplicateTagName("WORK"), t) { _ = try await t.store.createTag(name: "WORK", color: "#000000") }

        // A rename moves the claim: the old name is free, the new one taken.
        _ = try await t.store.updateTag(work.id, name: "Job")
        try await expectRejection(.duplicateTagName("JOB"), t) { _ = try await t.store.createTag(name: "JOB", color: "#000000") }
        let newWork = try await t.store.createTag(name: "WORK", color: "#123456")
        #expect(try await t.store.tags().map(\.id) == [home.id, work.id, newWork.id])
        #expect(try await t.store.tags().map(\.name) == ["Home", "Job", "WORK"])
        await t.cleanup()
    }

    @Test("a deleted tag is gone and its name is free; operations on it or on unknown tags are refused")
    func deleteFreesName() async throws {
        let t = try TemporaryStore()
        let work = try await t.store.createTag(name: "Work", color: "#000000")
        try await t.store.deleteTag(work.id)
        #expect(try t.store.log.read(stream: TodoAppEvent.tagStream(work.id)).map(\.type) == ["TagCreated", "TagDeleted"])
        #expect(try await t.store.tag(work.id) == nil)
        #expect(try await t.store.tags().isEmpty)

        try await expectRejection(.tagDeleted(work.id), t) { _ = try await t.store.updateTag(work.id, name: "Other") }
        try await expectRejection(.tagDeleted(work.id), t) { _ = try await t.store.updateTag(work.id, color: "#ffffff") }
        try await expectRejection(.tagDeleted(work.id), t) { try await t.store.deleteTag(work.id) }
        let unknown = UUID()
        try await expectRejection(.unknownTag(unknown), t) { _ = try await t.store.updateTag(unknown, name: "X") }
        try await expectRejection(.unknownTag(unknown), t) { try await t.store.deleteTag(unknown) }
        #expect(try await t.store.tag(unknown) == nil)

        let again = try await t.store.createTag(name: "work", color: "#ffffff")
        #expect(again.id != work.id)
        #expect(try await t.store.tags() == [again])
        try await expectRejection(.duplicateTagName("WORK"), t) { _ = try await t.store.createTag(name: "WORK", color: "#000000") }
        await t.cleanup()
    }

    @Test("colors are #rrggbb in either case, stored lowercase; anything else is refused")
    func colors() async throws {
        let t = try TemporaryStore()
        let tag = try await t.store.createTag(name: "Paint", color: "#ABCDEF")
        #expect(tag.color == "#abcdef")
        #expect(try await t.store.updateTag(tag.id, color: "#0A9fB3").color == "#0a9fb3")
        #expect(try await t.store.tag(tag.id)?.color == "#0a9fb3")
        let event = try #require(try t.store.log.read(stream: TodoAppEvent.tagStream(tag.id)).last)
        #expect(String(decoding: event.data, as: UTF8.self) == ##"{"color":"#0a9fb3"}"##)

        for bad in ["", "#", "abcdef", "#abcde", "#abcdef0", "#abcdeg", "##abcde", "#ab cde", "#ＡＢＣＤＥＦ",
                    "#١٢٣٤٥٦", "red", "#abc\ndef", "0xabcdef"] {
            try await expectRejection(.invalidColor(bad), t, "create \(bad)") {
                _ = try await t.store.createTag(name: "Brush", color: bad)
            }
            try await expectRejection(.invalidColor(bad), t, "update \(bad)") {
                _ = try await t.store.updateTag(tag.id, color: bad)
            }
        }
        #expect(try await t.store.tags() == [ChronicleTodoDomain.Tag(id: tag.id, name: "Paint", color: "#0a9fb3")])
        await t.cleanup()
    }

    @Test("names are non-empty after trimming and at most 50 characters")
    func nameLength() async throws {
        let t = try TemporaryStore()
        let fifty = String(repeating: "👍🏽", count: 50)
        let long = try await t.store.createTag(name: "  \(fifty)\n", color: "#000000")
        #expect(long.name == fifty)
        let ascii = try await t.store.createTag(name: String(repeating: "x", count: 50), color: "#000000")

        try await expectRejection(.emptyTagName, t) { _ = try await t.store.createTag(name: "", color: "#000000") }
        try await expectRejection(.emptyTagName, t) { _ = try await t.store.createTag(name: " \t\n ", color: "#000000") }
        try await expectRejection(.tagNameTooLong(51), t) {
            _ = try await t.store.createTag(name: String(repeating: "y", count: 51), color: "#000000")
        }
        try await expectRejection(.tagNameTooLong(51), t) {
            _ = try await t.store.createTag(name: fifty + "é", color: "#000000")
        }
        try await expectRejection(.emptyTagName, t) { _ = try await t.store.updateTag(ascii.id, name: "  ") }
        try await expectRejection(.tagNameTooLong(51), t) { _ = try await t.store.updateTag(ascii.id, name: fifty + "z") }
        try await expectRejection(.nothingToUpdate, t) { _ = try await t.store.updateTag(ascii.id) }
        // A long name is claimed like a short one.
        try await expectRejection(.duplicateTagName(String(repeating: "X", count: 50)), t) {
            _ = try await t.store.createTag(name: String(repeating: "X", count: 50), color: "#000000")
        }
        try await expectRejection(.duplicateTagName(fifty), t) { _ = try await t.store.createTag(name: fifty, color: "#000000") }
        await t.cleanup()
    }

    @Test("tag and untag: events, returned todo, and each refusal")
    func tagAndUntag() async throws {
        let t = try TemporaryStore()
        let work = try await t.store.createTag(name: "Work", color: "#000000")
        let home = try await t.store.createTag(name: "Home", color: "#ffffff")
        let todo = try await t.store.createTodo(title: "Report", deadline: "2026-03-01")
        #expect(todo.tags.isEmpty)

        let once = try await t.store.tagTodo(todo.id, tag: work.id)
        #expect(once.tags == [work.id])
        let twice = try await t.store.tagTodo(todo.id, tag: home.id)
        let sorted = [work.id, home.id].sorted { $0.uuidString.lowercased() < $1.uuidString.lowercased() }
        #expect(twice.tags == sorted)
        #expect(try await t.store.todo(todo.id) == twice)
        let events = try t.store.log.read(stream: TodoAppEvent.todoStream(todo.id))
        #expect(events.map(\.type) == ["TodoCreated", "TodoTagged", "TodoTagged"])
        #expect(String(decoding: events[1].data, as: UTF8.self) == #"{"tagId":"\#(work.id.uuidString.lowercased())"}"#)

        let unknown = UUID()
        try await expectRejection(.alreadyTagged(todo: todo.id, tag: work.id), t) { _ = try await t.store.tagTodo(todo.id, tag: work.id) }
        try await expectRejection(.unknownTag(unknown), t) { _ = try await t.store.tagTodo(todo.id, tag: unknown) }
        try await expectRejection(.unknownTag(unknown), t) { _ = try await t.store.untagTodo(todo.id, tag: unknown) }
        try await expectRejection(.unknownTodo(unknown), t) { _ = try await t.store.tagTodo(unknown, tag: work.id) }
        try await expectRejection(.unknownTodo(unknown), t) { _ = try await t.store.untagTodo(unknown, tag: work.id) }

        let untagged = try await t.store.untagTodo(todo.id, tag: work.id)
        #expect(untagged.tags == [home.id])
        #expect(try await t.store.todo(todo.id)?.tags == [home.id])
        let last = try #require(try t.store.log.read(stream: TodoAppEvent.todoStream(todo.id)).last)
        #expect(last.type == "TodoUntagged")
        #expect(String(decoding: last.data, as: UTF8.self) == #"{"tagId":"\#(work.id.uuidString.lowercased())"}"#)
        try await expectRejection(.notTagged(todo: todo.id, tag: work.id), t) { _ = try await t.store.untagTodo(todo.id, tag: work.id) }
        // Tagged again after an untag: fine.
        #expect(try await t.store.tagTodo(todo.id, tag: work.id).tags == sorted)

        let gone = try await t.store.createTag(name: "Gone", color: "#000000")
        try await t.store.deleteTag(gone.id)
        try await expectRejection(.tagDeleted(gone.id), t) { _ = try await t.store.tagTodo(todo.id, tag: gone.id) }

        try await t.store.deleteTodo(todo.id)
        try await expectRejection(.todoDeleted(todo.id), t) { _ = try await t.store.tagTodo(todo.id, tag: work.id) }
        try await expectRejection(.todoDeleted(todo.id), t) { _ = try await t.store.untagTodo(todo.id, tag: work.id) }
        #expect(try await t.store.todos(tag: work.id).isEmpty)
        await t.cleanup()
    }

    @Test("a deleted tag leaves every todo's tags and todos(tag:); a new tag with its name is another tag")
    func deletedTagLeavesTodos() async throws {
        let t = try TemporaryStore()
        let work = try await t.store.createTag(name: "Work", color: "#000000")
        let home = try await t.store.createTag(name: "Home", color: "#ffffff")
        let a = try await t.store.createTodo(title: "A", deadline: "2026-03-01")
        let b = try await t.store.createTodo(title: "B", deadline: "2026-03-02")
        for todo in [a, b] {
            _ = try await t.store.tagTodo(todo.id, tag: work.id)
            _ = try await t.store.tagTodo(todo.id, tag: home.id)
        }
        #expect(try await t.store.todos(tag: work.id).map(\.id) == [a.id, b.id])

        try await t.store.deleteTag(work.id)
        #expect(try await t.store.todos(tag: work.id).isEmpty)
        #expect(try await t.store.todos(on: "2026-03-01", tag: work.id).isEmpty)
        #expect(try await t.store.todo(a.id)?.tags == [home.id])
        #expect(try await t.store.todos().map(\.tags) == [[home.id], [home.id]])
        #expect(try await t.store.todos(tag: home.id).map(\.tags) == [[home.id], [home.id]])

        // The todos returned by commands show live tags only.
        let later = try await t.store.createTag(name: "Later", color: "#000000")
        let tagged = try await t.store.tagTodo(a.id, tag: later.id)
        #expect(tagged.tags == [home.id, later.id].sorted { $0.uuidString.lowercased() < $1.uuidString.lowercased() })
        #expect(try await t.store.untagTodo(a.id, tag: home.id).tags == [later.id])
        #expect(try await t.store.completeTodo(b.id).tags == [home.id])

        let reborn = try await t.store.createTag(name: "WORK", color: "#000000")
        #expect(try await t.store.todos(tag: reborn.id).isEmpty)
        #expect(try await t.store.todo(b.id)?.tags == [home.id])
        #expect(try await t.store.tagTodo(b.id, tag: reborn.id).tags.contains(reborn.id))
        #expect(try await t.store.todos(tag: reborn.id).map(\.id) == [b.id])
        await t.cleanup()
    }

    /// Contract: "untagging what is not there" and "operations on … deleted tags" are rejected.
    /// Fails if the untagging accepts a deleted tag the todo still remembers.
    @Test("untagging a deleted tag is refused and appends nothing")
    func untagDeletedTag() async throws {
        let t = try TemporaryStore()
        let work = try await t.store.createTag(name: "Work", color: "#000000")
        let todo = try await t.store.createTodo(title: "A", deadline: "2026-03-01")
        _ = try await t.store.tagTodo(todo.id, tag: work.id)
        try await t.store.deleteTag(work.id)
        #expect(try await t.store.todo(todo.id)?.tags == [])
        let before = try t.fingerprint()
        do {
            _ = try await t.store.untagTodo(todo.id, tag: work.id)
            Issue.record("untagging the deleted tag \(work.id) was accepted")
        } catch let error as ChronicleError {
            #expect([.rejected(.tagDeleted(work.id)), .rejected(.notTagged(todo: todo.id, tag: work.id))].contains(error))
        }
        #expect(try t.fingerprint() == before, "a TodoUntagged was appended for a deleted tag")
        await t.cleanup()
    }

    @Test("todos(on:user:tag:) combines day, user and tag, by deadline then id")
    func combinedFilters() async throws {
        let t = try TemporaryStore()
        let ada = try await t.store.createUser(name: "Ada", age: 36)
        let bob = try await t.store.createUser(name: "Bob", age: 40)
        let work = try await t.store.createTag(name: "Work", color: "#000000")
        let home = try await t.store.createTag(name: "Home", color: "#ffffff")
        // Created out of deadline order, so the listing order is the index's.
        let adaLate = try await t.store.createTodo(title: "1", deadline: "2026-05-02", userId: ada.id)
        let adaEarly = try await t.store.createTodo(title: "2", deadline: "2026-05-01", userId: ada.id)
        let bobEarly = try await t.store.createTodo(title: "3", deadline: "2026-05-01", userId: bob.id)
        let nobodyLate = try await t.store.createTodo(title: "4", deadline: "2026-05-02")
        let adaEarly2 = try await t.store.createTodo(title: "5", deadline: "2026-05-01", userId: ada.id)
        for todo in [adaLate, adaEarly, bobEarly, nobodyLate] { _ = try await t.store.tagTodo(todo.id, tag: work.id) }
        _ = try await t.store.tagTodo(adaEarly2.id, tag: home.id)

        func ids(_ day: String? = nil, _ user: UUID? = nil, _ tag: UUID? = nil) async throws -> [UUID] {
            try await t.store.todos(on: day, user: user, tag: tag).map(\.id)
        }
        #expect(try await ids(nil, nil, work.id) == [adaEarly.id, bobEarly.id, adaLate.id, nobodyLate.id])
        #expect(try await ids("2026-05-01", nil, work.id) == [adaEarly.id, bobEarly.id])
        #expect(try await ids(nil, ada.id, work.id) == [adaEarly.id, adaLate.id])
        #expect(try await ids("2026-05-02", ada.id, work.id) == [adaLate.id])
        #expect(try await ids("2026-05-02", bob.id, work.id) == [])
        #expect(try await ids("2026-05-01", ada.id, home.id) == [adaEarly2.id])
        #expect(try await ids("2026-05-01", ada.id) == [adaEarly.id, adaEarly2.id])
        #expect(try await ids(nil, nil, UUID()) == [])
        await #expect(throws: ChronicleError.rejected(.invalidDate("2026-02-30"))) {
            _ = try await t.store.todos(on: "2026-02-30", tag: work.id)
        }
        await t.cleanup()
    }

    @Test("the by-tag listing follows deadline moves, completions, untags and deletions of todos and users")
    func tagIndexFollowsTodos() async throws {
        let t = try TemporaryStore()
        let ada = try await t.store.createUser(name: "Ada", age: 36)
        let work = try await t.store.createTag(name: "Work", color: "#000000")
        let a = try await t.store.createTodo(title: "A", deadline: "2026-06-01", userId: ada.id)
        let b = try await t.store.createTodo(title: "B", deadline: "2026-06-02")
        let c = try await t.store.createTodo(title: "C", deadline: "2026-06-03")
        for todo in [a, b, c] { _ = try await t.store.tagTodo(todo.id, tag: work.id) }

        _ = try await t.store.updateTodo(a.id, deadline: "2026-06-09")
        #expect(try await t.store.todos(on: "2026-06-01", tag: work.id).isEmpty)
        #expect(try await t.store.todos(on: "2026-06-09", tag: work.id).map(\.id) == [a.id])
        _ = try await t.store.completeTodo(b.id)
        #expect(try await t.store.todos(on: "2026-06-02", tag: work.id).map(\.isCompleted) == [true])
        _ = try await t.store.untagTodo(b.id, tag: work.id)
        try await t.store.deleteTodo(c.id)
        #expect(try await t.store.todos(tag: work.id).map(\.id) == [a.id])

        try await t.store.deleteUser(ada.id)
        #expect(try await t.store.todos(tag: work.id).isEmpty)
        #expect(try await t.store.todos().map(\.id) == [b.id])
        #expect(try await t.store.stats() == [DailyStat(date: try CalendarDay(parsing: "2026-06-02"), total: 1, completed: 1)])
        await t.cleanup()
    }

    @Test("after reopening: tags, todos' tags and the claims on names are as they were")
    func reopen() async throws {
        let t = try TemporaryStore()
        let work = try await t.store.createTag(name: "Work", color: "#FF8800")
        let home = try await t.store.createTag(name: "Home", color: "#00ff00")
        let gone = try await t.store.createTag(name: "Gone", color: "#000000")
        _ = try await t.store.updateTag(home.id, name: "House")
        let todo = try await t.store.createTodo(title: "A", deadline: "2026-03-01")
        _ = try await t.store.tagTodo(todo.id, tag: work.id)
        _ = try await t.store.tagTodo(todo.id, tag: gone.id)
        try await t.store.deleteTag(gone.id)
        let tags = try await t.store.tags()
        let todos = try await t.store.todos(tag: work.id)
        await t.store.close()

        let store = try ChronicleStore(directory: t.directory)
        #expect(try await store.tags() == tags)
        #expect(try await store.tag(work.id)?.color == "#ff8800")
        #expect(try await store.todos(tag: work.id) == todos)
        #expect(try await store.todo(todo.id)?.tags == [work.id])
        #expect(try await store.todos(tag: gone.id).isEmpty)
        let head = try store.log.head()
        await #expect(throws: ChronicleError.rejected(.duplicateTagName("WORK"))) {
            try await store.createTag(name: "WORK", color: "#000000")
        }
        await #expect(throws: ChronicleError.rejected(.duplicateTagName("house"))) {
            try await store.updateTag(work.id, name: "house")
        }
        #expect(try store.log.head() == head)
        // Released names stay released: the old name of the renamed tag, and the deleted tag's.
        _ = try await store.createTag(name: "home", color: "#000000")
        _ = try await store.createTag(name: "GONE", color: "#000000")
        #expect(try await store.tags().map(\.name) == ["GONE", "home", "House", "Work"])
        await store.close()
        t.folder.remove()
    }

    @Test("16 tasks creating one name in different cases at once: exactly one succeeds")
    func concurrentCreates() async throws {
        let t = try TemporaryStore()
        let store = t.store
        for base in ["alpha", "bravo", "straße", "charlie", "σοφίας", "delta"] {
            let head = try t.store.log.head()
            let results = await withTaskGroup(of: (String, Result<ChronicleTodoDomain.Tag, any Error>).self) { group in
                for i in 0..<16 {
                    let name = Self.variant(of: base, i)
                    group.addTask {
                        do { return (name, .success(try await store.createTag(name: name, color: "#000000"))) } catch { return (name, .failure(error)) }
                    }
                }
                var all: [(String, Result<ChronicleTodoDomain.Tag, any Error>)] = []
                for await result in group { all.append(result) }
                return all
            }
            #expect(Set(results.map(\.0)).count == 16, "the variants of \(base) are distinct")
            let winners = results.compactMap { if case .success(let tag) = $0.1 { tag } else { nil } }
            #expect(winners.count == 1, "\(base)")
            for case (let name, .failure(let error)) in results {
                #expect(error as? ChronicleError == .rejected(.duplicateTagName(name)), "\(name): \(error)")
            }
            #expect(try t.store.log.read(after: head, limit: 100).map(\.type) == ["TagCreated"], "\(base)")
            let live = try await t.store.tags().filter { ChronicleTodoDomain.Tag.foldedName($0.name) == ChronicleTodoDomain.Tag.foldedName(base) }
            #expect(live == winners, "\(base)")
        }
        await t.cleanup()
    }

    @Test("a rename and creations racing for one name: exactly one gets it")
    func concurrentRenameAndCreates() async throws {
        let t = try TemporaryStore()
        let store = t.store
        for round in 0..<6 {
            let spare = try await t.store.createTag(name: "spare \(round)", color: "#000000")
            let base = "target\(round)"
            let head = try t.store.log.head()
            let results = await withTaskGroup(of: (String, Result<ChronicleTodoDomain.Tag, any Error>).self) { group in
                for i in 0..<16 {
                    let name = Self.variant(of: base, i)
                    group.addTask {
                        do {
                            let tag = i == 0 ? try await store.updateTag(spare.id, name: name)
                                : try await store.createTag(name: name, color: "#ffffff")
                            return (name, .success(tag))
                        } catch {
                            return (name, .failure(error))
                        }
                    }
                }
                var all: [(String, Result<ChronicleTodoDomain.Tag, any Error>)] = []
                for await result in group { all.append(result) }
                return all
            }
            let winners = results.compactMap { if case .success(let tag) = $0.1 { tag } else { nil } }
            #expect(winners.count == 1, "round \(round)")
            for case (let name, .failure(let error)) in results {
                #expect(error as? ChronicleError == .rejected(.duplicateTagName(name)), "\(name): \(error)")
            }
            #expect(try t.store.log.read(after: head, limit: 100).count == 1, "round \(round)")
            let live = try await t.store.tags().filter { ChronicleTodoDomain.Tag.foldedName($0.name) == ChronicleTodoDomain.Tag.foldedName(base) }
            #expect(live == winners, "round \(round)")
            let spareName = try await t.store.tag(spare.id)?.name
            #expect(spareName == (winners.first?.id == spare.id ? winners.first?.name : "spare \(round)"))
        }
        await t.cleanup()
    }

    @Test("a tag deleted while todos are tagged with it: no TodoTagged follows its TagDeleted in the log")
    func concurrentDeleteAndTag() async throws {
        let t = try TemporaryStore()
        let store = t.store
        for round in 0..<20 {
            let tag = try await t.store.createTag(name: "Doomed \(round)", color: "#000000")
            var todos: [UUID] = []
            for i in 0..<4 { todos.append(try await t.store.createTodo(title: "T\(i)", deadline: "2026-08-01").id) }
            let head = try t.store.log.head()
            let failures = await withTaskGroup(of: (any Error)?.self) { group in
                group.addTask { do { try await store.deleteTag(tag.id); return nil } catch { return error } }
                for todo in todos {
                    group.addTask { do { _ = try await store.tagTodo(todo, tag: tag.id); return nil } catch { return error } }
                }
                var all: [any Error] = []
                for await case let error? in group { all.append(error) }
                return all
            }
            for error in failures {
                #expect(error as? ChronicleError == .rejected(.tagDeleted(tag.id)), "round \(round): \(error)")
            }
            let appended = try t.store.log.read(after: head, limit: 100)
            let deletion = try #require(appended.first { $0.type == "TagDeleted" }, "round \(round)")
            #expect(appended.filter { $0.type == "TodoTagged" }.allSatisfy { $0.position < deletion.position }, "round \(round)")
            #expect(appended.count == 1 + 4 - failures.count, "round \(round)")
            #expect(try await t.store.todos(tag: tag.id).isEmpty)
            for todo in todos { #expect(try await t.store.todo(todo)?.tags == []) }
        }
        await t.cleanup()
    }

    @Test("16 tasks tagging one todo with one tag at once: exactly one succeeds")
    func concurrentTagging() async throws {
        let t = try TemporaryStore()
        let store = t.store
        let tag = try await t.store.createTag(name: "Work", color: "#000000")
        for round in 0..<5 {
            let todo = try await t.store.createTodo(title: "T\(round)", deadline: "2026-08-01")
            let results = await withTaskGroup(of: Result<Todo, any Error>.self) { group in
                for _ in 0..<16 {
                    group.addTask { do { return .success(try await store.tagTodo(todo.id, tag: tag.id)) } catch { return .failure(error) } }
                }
                var all: [Result<Todo, any Error>] = []
                for await result in group { all.append(result) }
                return all
            }
            #expect(results.filter { if case .success = $0 { true } else { false } }.count == 1)
            for case .failure(let error) in results {
                #expect(error as? ChronicleError == .rejected(.alreadyTagged(todo: todo.id, tag: tag.id)))
            }
            #expect(try t.store.log.read(stream: TodoAppEvent.todoStream(todo.id)).map(\.type) == ["TodoCreated", "TodoTagged"])
        }
        await t.cleanup()
    }

    // MARK: - Helpers

    /// `base` with its first four characters uppercased by the bits of `i`, the rest when `i` is odd.
    static func variant(of base: String, _ i: Int) -> String {
        base.enumerated().map { j, character in
            let upper = j < 4 ? i & (1 << j) != 0 : i % 2 == 1
            return upper ? String(character).uppercased() : String(character)
        }.joined()
    }

    /// Expects `attempt` to be rejected with exactly `error`, and the log's head and head hash unchanged.
    func expectRejection(_ error: DomainError, _ t: TemporaryStore, _ comment: Comment? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation,
                         _ attempt: () async throws -> Void) async throws {
        let before = try t.fingerprint()
        await #expect(throws: ChronicleError.rejected(error), comment, sourceLocation: sourceLocation) { try await attempt() }
        #expect(try t.fingerprint() == before, "appended something", sourceLocation: sourceLocation)
    }

    @Test("tag events are written at schema version 2, names composed; an older device's version-1 event is read the same way")
    func schemaVersions() async throws {
        let t = try TemporaryStore()
        let composedEmile = "\u{C9}mile", decomposedZoe = "Zoe\u{308}"
        let tag = try await t.store.createTag(name: "E\u{301}mile", color: "#000000")
        #expect(Array(tag.name.unicodeScalars) == Array(composedEmile.unicodeScalars))
        let stored = try t.store.log.read(stream: TodoAppEvent.tagStream(tag.id))
        #expect(stored.map(\.schemaVersion) == [2])
        #expect(String(decoding: stored[0].data, as: UTF8.self).unicodeScalars.contains("\u{C9}"))
        let theirs = UUID()
        _ = try await t.store.log.ingest([ForeignEvent(id: UUID(), stream: TodoAppEvent.tagStream(theirs), version: 1, type: "TagCreated",
                                                       timestampMilliseconds: 1_800_000_000_000, origin: "older-device",
                                                       data: Data(##"{"color":"#111111","name":"\##(decomposedZoe)"}"##.utf8),
                                                       upstreamPosition: 2)])
        let read = try #require(try await t.store.tag(theirs))
        #expect(Array(read.name.unicodeScalars) == Array("Zo\u{EB}".unicodeScalars))
        await t.cleanup()
    }
}
