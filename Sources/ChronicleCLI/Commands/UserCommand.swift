import ArgumentParser
import Chronicle
import ChronicleTodoDomain
import Foundation
import UUIDText

/// `chronicle user …`
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Create, change, delete and read users.",
        subcommands: [Add.self, Update.self, Delete.self, List.self, Show.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a user; prints the new id.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The name (1…200 characters).") var name: String
        @Option(parsing: .unconditional, help: "The age (0…150).") var age: Int
        @Flag(help: "Print the new user as JSON.") var json = false

        func run() async throws {
            let chronicle = try StoreAccess.openStore(store)
            let user = try await chronicle.createUser(name: name, age: age)
            if json { CLIOutput.line(ModelJSON.user(user)) } else { CLIOutput.line(user.id.lowercasedString) }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a user's name and/or age.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The user's id.") var id: String
        @Option(help: "The new name.") var name: String?
        @Option(parsing: .unconditional, help: "The new age.") var age: Int?
        @Flag(help: "Print the updated user as JSON.") var json = false

        func run() async throws {
            let id = try parseID(id, what: "user")
            let chronicle = try StoreAccess.openStore(store)
            let user = try await chronicle.updateUser(id, name: name, age: age)
            if json { CLIOutput.line(ModelJSON.user(user)) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a user and the user's todos.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The user's id.") var id: String

        func run() async throws {
            let id = try parseID(id, what: "user")
            let chronicle = try StoreAccess.openStore(store)
            try await chronicle.refresh()
            try await chronicle.deleteUser(id)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users by name.")
        @OptionGroup var store: StoreOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let chronicle = try StoreAccess.openStore(store)
            try await chronicle.refresh()
            let users = try await chronicle.users()
            if json { CLIOutput.line(ModelJSON.array(users, ModelJSON.user)); return }
            CLIOutput.line(CLIOutput.table(["ID", "NAME", "AGE"], users.map { [$0.id.lowercasedString, $0.name, String($0.age)] }))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one user.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The user's id.") var id: String
        @Flag(help: "Print the user as JSON.") var json = false

        func run() async throws {
            let id = try parseID(id, what: "user")
            let chronicle = try StoreAccess.openStore(store)
            try await chronicle.refresh()
            guard let user = try await chronicle.user(id) else {
                throw ChronicleError.rejected(.unknownUser(id))
            }
            if json { CLIOutput.line(ModelJSON.user(user)); return }
            CLIOutput.line("id:   \(user.id.lowercasedString)\nname: \(user.name)\nage:  \(user.age)")
        }
    }
}
