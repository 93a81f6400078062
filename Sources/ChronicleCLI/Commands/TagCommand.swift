import ArgumentParser
import Chronicle
import ChronicleTodoDomain
import Foundation
import UUIDText

/// `chronicle tag …`
struct TagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag",
        abstract: "Create, change, delete and read tags (names unique without regard to case).",
        subcommands: [Add.self, Update.self, Delete.self, List.self, Show.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a tag; prints the new id.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The name (1…50 characters, unique among live tags without regard to case).") var name: String
        @Option(help: "The color, #rrggbb.") var color: String
        @Flag(help: "Print the new tag as JSON.") var json = false

        func run() async throws {
            let tag = try await StoreAccess.openStore(store).createTag(name: name, color: color)
            if json { CLIOutput.line(ModelJSON.tag(tag)) } else { CLIOutput.line(tag.id.lowercasedString) }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename and/or recolor a tag.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The tag's id.") var id: String
        @Option(help: "The new name.") var name: String?
        @Option(help: "The new color, #rrggbb.") var color: String?
        @Flag(help: "Print the updated tag as JSON.") var json = false

        func run() async throws {
            let id = try parseID(id, what: "tag")
            let tag = try await StoreAccess.openStore(store).updateTag(id, name: name, color: color)
            if json { CLIOutput.line(ModelJSON.tag(tag)) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a tag; it leaves every todo.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The tag's id.") var id: String

        func run() async throws {
            try await StoreAccess.openStore(store).deleteTag(try parseID(id, what: "tag"))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List tags by name.")
        @OptionGroup var store: StoreOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let chronicle = try StoreAccess.openStore(store)
            try await chronicle.refresh()
            let tags = try await chronicle.tags()
            if json { CLIOutput.line(ModelJSON.array(tags, ModelJSON.tag)); return }
            CLIOutput.line(CLIOutput.table(["ID", "COLOR", "NAME"], tags.map { [$0.id.lowercasedString, $0.color, $0.name] }))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one tag.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The tag's id.") var id: String
        @Flag(help: "Print the tag as JSON.") var json = false

        func run() async throws {
            let id = try parseID(id, what: "tag")
            let chronicle = try StoreAccess.openStore(store)
            try await chronicle.refresh()
            guard let tag = try await chronicle.tag(id) else { throw ChronicleError.rejected(.unknownTag(id)) }
            if json { CLIOutput.line(ModelJSON.tag(tag)); return }
            CLIOutput.line("id:    \(tag.id.lowercasedString)\nname:  \(tag.name)\ncolor: \(tag.color)")
        }
    }
}
