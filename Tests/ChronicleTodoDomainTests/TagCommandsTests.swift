import Foundation
import Testing
import ChronicleTodoDomain

struct TagCommandsTests {
    let id = uuid(30)
    let other = uuid(31)
    var live: TagAggregate { tagAggregate(.tagCreated(id: id, name: "Work", color: "#1a2b3c")) }
    var deleted: TagAggregate { tagAggregate(.tagCreated(id: id, name: "Work", color: "#1a2b3c"), .tagDeleted(id: id)) }

    // MARK: - create

    @Test func createTrimsTheNameAndLowercasesTheColor() throws {
        let event = try TagCommands.create(id: id, name: " \t Deep Work\n ", color: "#1A2b3C", nameHolder: nil)
        #expect(event == .tagCreated(id: id, name: "Deep Work", color: "#1a2b3c"))
    }

    @Test(arguments: ["", "   ", "\n\t \r\n", "\u{00A0}\u{2003}"])
    func createRejectsEmptyOrWhitespaceOnlyNames(name: String) {
        #expect(throws: DomainError.emptyTagName) {
            try TagCommands.create(id: id, name: name, color: "#000000", nameHolder: nil)
        }
    }

    @Test func nameLengthLimitIs50CharactersAfterTrimming() throws {
        let atLimit = String(repeating: "é", count: 50)
        #expect(try TagCommands.create(id: id, name: " " + atLimit + " ", color: "#000000", nameHolder: nil)
            == .tagCreated(id: id, name: atLimit, color: "#000000"))
        #expect(throws: DomainError.tagNameTooLong(51)) {
            try TagCommands.create(id: id, name: atLimit + "👩‍👩‍👧", color: "#000000", nameHolder: nil)
        }
    }

    @Test(arguments: ["#000000", "#ffffff", "#FFFFFF", "#aBcDeF", "#0a1B2c"])
    func acceptsSixHexDigitsInEitherCase(color: String) throws {
        #expect(try TagCommands.create(id: id, name: "t", color: color, nameHolder: nil)
            == .tagCreated(id: id, name: "t", color: color.lowercased()))
    }

    @Test(arguments: [
        "", "#", "000000", "#00000", "#0000000", "#00000g", "#GGGGGG", "##00000", " #000000", "#000000 ",
        "#000000\n", "#fff", "rgb(0,0,0)", "red", "#００００００", "#٠٠٠٠٠٠", "#-12345", "#+12345", "＃000000",
        "#00 000", "#é0000",
    ])
    func rejectsAnythingElseAsAColor(color: String) {
        #expect(throws: DomainError.invalidColor(color)) {
            try TagCommands.create(id: id, name: "t", color: color, nameHolder: nil)
        }
    }

    @Test func createRejectsATakenName() {
        #expect(throws: DomainError.duplicateTagName("WORK")) {
            try TagCommands.create(id: id, name: " WORK ", color: "#000000", nameHolder: other)
        }
    }

    @Test func createChecksArgumentsBeforeTheName() {
        #expect(throws: DomainError.emptyTagName) {
            try TagCommands.create(id: id, name: " ", color: "#000000", nameHolder: other)
        }
        #expect(throws: DomainError.invalidColor("x")) {
            try TagCommands.create(id: id, name: "Work", color: "x", nameHolder: other)
        }
    }

    // MARK: - update

    @Test func updateCarriesOnlyTheGivenFieldsNormalised() throws {
        #expect(try TagCommands.update(live, id: id, name: " Job ", color: nil, nameHolder: nil)
            == .tagUpdated(id: id, name: "Job", color: nil))
        #expect(try TagCommands.update(live, id: id, name: nil, color: "#ABCDEF", nameHolder: nil)
            == .tagUpdated(id: id, name: nil, color: "#abcdef"))
        #expect(try TagCommands.update(live, id: id, name: "Job", color: "#000000", nameHolder: nil)
            == .tagUpdated(id: id, name: "Job", color: "#000000"))
    }

    @Test func updateNeedsAtLeastOneField() {
        #expect(throws: DomainError.nothingToUpdate) {
            try TagCommands.update(live, id: id, name: nil, color: nil, nameHolder: nil)
        }
    }

    @Test func updateValidatesLikeCreateBeforeLookingAtState() {
        #expect(throws: DomainError.emptyTagName) {
            try TagCommands.update(deleted, id: id, name: " ", color: nil, nameHolder: nil)
        }
        #expect(throws: DomainError.tagNameTooLong(51)) {
            try TagCommands.update(live, id: id, name: String(repeating: "x", count: 51), color: nil, nameHolder: nil)
        }
        #expect(throws: DomainError.invalidColor("#12345")) {
            try TagCommands.update(TagAggregate(), id: id, name: nil, color: "#12345", nameHolder: nil)
        }
    }

    @Test func renamingToANameAnotherTagHoldsIsRejected() {
        #expect(throws: DomainError.duplicateTagName("Home")) {
            try TagCommands.update(live, id: id, name: "Home", color: nil, nameHolder: other)
        }
    }

    @Test func renamingToADifferentCaseOfItsOwnNameIsAllowed() throws {
        #expect(try TagCommands.update(live, id: id, name: "WORK", color: nil, nameHolder: id)
            == .tagUpdated(id: id, name: "WORK", color: nil))
    }

    @Test func aColorOnlyUpdateIgnoresTheNameHolder() throws {
        #expect(try TagCommands.update(live, id: id, name: nil, color: "#000000", nameHolder: other)
            == .tagUpdated(id: id, name: nil, color: "#000000"))
    }

    @Test func updateRejectsUnknownAndDeletedTags() {
        #expect(throws: DomainError.unknownTag(id)) {
            try TagCommands.update(TagAggregate(), id: id, name: "A", color: nil, nameHolder: nil)
        }
        #expect(throws: DomainError.unknownTag(uuid(99))) {
            try TagCommands.update(live, id: uuid(99), name: "A", color: nil, nameHolder: nil)
        }
        #expect(throws: DomainError.tagDeleted(id)) {
            try TagCommands.update(deleted, id: id, name: "A", color: nil, nameHolder: nil)
        }
        // State is checked before the name: an unknown tag is the first problem.
        #expect(throws: DomainError.unknownTag(id)) {
            try TagCommands.update(TagAggregate(), id: id, name: "Home", color: nil, nameHolder: other)
        }
    }

    // MARK: - delete

    @Test func deleteDecidesTagDeleted() throws {
        #expect(try TagCommands.delete(live, id: id) == .tagDeleted(id: id))
    }

    @Test func deleteRejectsUnknownAndDeletedTags() {
        #expect(throws: DomainError.unknownTag(id)) { try TagCommands.delete(TagAggregate(), id: id) }
        #expect(throws: DomainError.unknownTag(other)) { try TagCommands.delete(live, id: other) }
        #expect(throws: DomainError.tagDeleted(id)) { try TagCommands.delete(deleted, id: id) }
    }
}
