import Foundation
import Testing
import ChronicleTodoDomain

/// The todo app's own checks of typed values, with their documented texts (docs/CLI.md):
/// what `createUser`, `createTodo`, `createTag` and the updates run before the model decides.
struct TodoAppInputTests {
    @Test func namesAndTitlesAreTrimmed() throws {
        #expect(try TodoAppInput.userName(" \t Ada Lovelace\n ") == "Ada Lovelace")
        #expect(try TodoAppInput.title("  Pay rent \n") == "Pay rent")
        #expect(try TodoAppInput.tagName(" \t Deep Work\n ") == "Deep Work")
    }

    @Test(arguments: ["", "   ", "\n\t \r\n", "\u{00A0}\u{2003}"])
    func emptyOrWhitespaceOnlyTextIsRefused(text: String) {
        #expect(throws: DomainError.emptyName) { try TodoAppInput.userName(text) }
        #expect(throws: DomainError.emptyTitle) { try TodoAppInput.title(text) }
        #expect(throws: DomainError.emptyTagName) { try TodoAppInput.tagName(text) }
    }

    @Test func lengthsAreCountedInCharactersAfterTrimming() throws {
        let name = String(repeating: "a", count: 200)
        #expect(try TodoAppInput.userName("  " + name + "  ") == name)
        #expect(throws: DomainError.nameTooLong(201)) { try TodoAppInput.userName(name + "b") }
        let family = String(repeating: "👩‍👩‍👧", count: 200)
        #expect(try TodoAppInput.userName(family) == family)
        #expect(throws: DomainError.nameTooLong(201)) { try TodoAppInput.userName(family + "é") }
        let title = String(repeating: "t", count: 500)
        #expect(try TodoAppInput.title(title) == title)
        #expect(throws: DomainError.titleTooLong(501)) { try TodoAppInput.title(title + "!") }
        let tag = String(repeating: "é", count: 50)
        #expect(try TodoAppInput.tagName(" " + tag + " ") == tag)
        #expect(throws: DomainError.tagNameTooLong(51)) { try TodoAppInput.tagName(tag + "👩‍👩‍👧") }
    }

    @Test func aTagNameIsStoredInCanonicalComposition() throws {
        #expect(try TodoAppInput.tagName("E\u{301}mile") == "\u{C9}mile")
        #expect(try TodoAppInput.tagName("E\u{301}mile").unicodeScalars.count == 5)
    }

    @Test(arguments: [0, 1, 149, 150])
    func agesInRangeAreAccepted(age: Int) throws {
        #expect(try TodoAppInput.age(age) == age)
    }

    @Test(arguments: [-1, 151, Int.min, Int.max])
    func agesOutOfRangeAreRefused(age: Int) {
        #expect(throws: DomainError.ageOutOfRange(age)) { try TodoAppInput.age(age) }
    }

    @Test(arguments: ["2026-02-30", "2025-02-29", "2026-1-05", "tomorrow", ""])
    func aDeadlineMustBeARealDay(text: String) throws {
        #expect(throws: DomainError.invalidDate(text)) { try TodoAppInput.deadline(text) }
        #expect(try TodoAppInput.deadline("2024-02-29") == "2024-02-29")
    }

    @Test(arguments: ["#000000", "#ffffff", "#FFFFFF", "#aBcDeF", "#0a1B2c"])
    func colorsAreSixHexDigitsStoredLowercase(color: String) throws {
        #expect(try TodoAppInput.color(color) == color.lowercased())
    }

    @Test(arguments: [
        "", "#", "000000", "#00000", "#0000000", "#00000g", "#GGGGGG", "##00000", " #000000", "#000000 ",
        "#000000\n", "#fff", "rgb(0,0,0)", "red", "#００００００", "#٠٠٠٠٠٠", "#-12345", "#+12345", "＃000000",
        "#00 000", "#é0000",
    ])
    func anythingElseIsNotAColor(color: String) {
        #expect(throws: DomainError.invalidColor(color)) { try TodoAppInput.color(color) }
    }
}
