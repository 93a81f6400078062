import Foundation
import Testing
import ChronicleTodoDomain

struct UserCommandsTests {
    let id = uuid(1)
    var live: UserAggregate { userAggregate(.userCreated(id: id, name: "Ada", age: 36)) }
    var deleted: UserAggregate { userAggregate(.userCreated(id: id, name: "Ada", age: 36), .userDeleted(id: id)) }

    // MARK: - create

    @Test func createTrimsTheName() throws {
        let event = try UserCommands.create(id: id, name: " \t Ada Lovelace\n ", age: 36)
        #expect(event == .userCreated(id: id, name: "Ada Lovelace", age: 36))
    }

    @Test(arguments: ["", "   ", "\n\t \r\n", "\u{00A0}\u{2003}"])
    func createRejectsEmptyOrWhitespaceOnlyNames(name: String) {
        #expect(throws: DomainError.emptyName) { try UserCommands.create(id: id, name: name, age: 30) }
    }

    @Test func nameLengthLimitIs200CharactersAfterTrimming() throws {
        let atLimit = String(repeating: "a", count: 200)
        #expect(try UserCommands.create(id: id, name: atLimit, age: 1)
            == .userCreated(id: id, name: atLimit, age: 1))
        #expect(try UserCommands.create(id: id, name: "  " + atLimit + "  ", age: 1)
            == .userCreated(id: id, name: atLimit, age: 1))
        #expect(throws: DomainError.nameTooLong(201)) {
            try UserCommands.create(id: id, name: atLimit + "b", age: 1)
        }
    }

    @Test func nameLengthCountsCharactersNotBytes() throws {
        let emoji = String(repeating: "👩‍👩‍👧", count: 200)
        #expect(try UserCommands.create(id: id, name: emoji, age: 1) == .userCreated(id: id, name: emoji, age: 1))
        #expect(throws: DomainError.nameTooLong(201)) {
            try UserCommands.create(id: id, name: emoji + "é", age: 1)
        }
    }

    @Test(arguments: [0, 1, 149, 150])
    func acceptsAgesInRange(age: Int) throws {
        #expect(try UserCommands.create(id: id, name: "A", age: age) == .userCreated(id: id, name: "A", age: age))
    }

    @Test(arguments: [-1, 151, Int.min, Int.max])
    func rejectsAgesOutOfRange(age: Int) {
        #expect(throws: DomainError.ageOutOfRange(age)) { try UserCommands.create(id: id, name: "A", age: age) }
    }

    // MARK: - update

    @Test func updateCarriesOnlyTheGivenFieldsTrimmed() throws {
        #expect(try UserCommands.update(live, id: id, name: " Ada L. ", age: nil)
            == .userUpdated(id: id, name: "Ada L.", age: nil))
        #expect(try UserCommands.update(live, id: id, name: nil, age: 0)
            == .userUpdated(id: id, name: nil, age: 0))
        #expect(try UserCommands.update(live, id: id, name: "B", age: 150)
            == .userUpdated(id: id, name: "B", age: 150))
    }

    @Test func updateNeedsAtLeastOneField() {
        #expect(throws: DomainError.nothingToUpdate) { try UserCommands.update(live, id: id, name: nil, age: nil) }
    }

    @Test func updateValidatesLikeCreate() {
        #expect(throws: DomainError.emptyName) { try UserCommands.update(live, id: id, name: "  ", age: nil) }
        #expect(throws: DomainError.nameTooLong(201)) {
            try UserCommands.update(live, id: id, name: String(repeating: "x", count: 201), age: nil)
        }
        #expect(throws: DomainError.ageOutOfRange(151)) { try UserCommands.update(live, id: id, name: nil, age: 151) }
        #expect(throws: DomainError.ageOutOfRange(-1)) { try UserCommands.update(live, id: id, name: "A", age: -1) }
    }

    @Test func updateRejectsUnknownAndDeletedUsers() {
        #expect(throws: DomainError.unknownUser(id)) {
            try UserCommands.update(UserAggregate(), id: id, name: "A", age: nil)
        }
        #expect(throws: DomainError.unknownUser(uuid(99))) {
            try UserCommands.update(live, id: uuid(99), name: "A", age: nil)
        }
        #expect(throws: DomainError.userDeleted(id)) {
            try UserCommands.update(deleted, id: id, name: "A", age: nil)
        }
    }

    // MARK: - delete

    @Test func deleteCascadesToExactlyTheUsersTodos() throws {
        let mine = [
            Todo(id: uuid(10), title: "a", deadline: day("2026-03-01"), userId: id),
            Todo(id: uuid(11), title: "b", deadline: day("2026-03-02"), userId: id, isCompleted: true),
        ]
        let someoneElses = Todo(id: uuid(12), title: "c", deadline: day("2026-03-01"), userId: uuid(2))
        let unowned = Todo(id: uuid(13), title: "d", deadline: day("2026-03-01"))
        let events = try UserCommands.delete(
            live, id: id, liveTodosOfUser: [mine[0], someoneElses, mine[1], unowned, mine[0]])
        #expect(events == [.userDeleted(id: id), .todoDeleted(id: uuid(10)), .todoDeleted(id: uuid(11))])
    }

    @Test func deleteWithoutTodosIsJustUserDeleted() throws {
        #expect(try UserCommands.delete(live, id: id, liveTodosOfUser: []) == [.userDeleted(id: id)])
    }

    @Test func deleteRejectsUnknownAndDeletedUsers() {
        #expect(throws: DomainError.unknownUser(id)) {
            try UserCommands.delete(UserAggregate(), id: id, liveTodosOfUser: [])
        }
        #expect(throws: DomainError.userDeleted(id)) {
            try UserCommands.delete(deleted, id: id, liveTodosOfUser: [])
        }
    }
}
