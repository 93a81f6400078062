import ArgumentParser
import Chronicle
import ChronicleTodoDomain
import Foundation
import UUIDText

/// `chronicle todo …`
struct TodoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todo",
        abstract: "Create, change, complete, delete and read todos.",
        subcommands: [Add.self, Update.self, Complete.self, Reopen.self, Delete.self, TagTodo.self, UntagTodo.self,
                      List.self, Show.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a todo; prints the new id.")
        @OptionGroup var store: StoreOptions
        @Option(help: "The title (1…500 characters).") var title: String
        @Option(help: "The deadline, a calendar day YYYY-MM-DD.") var deadline: String
        @Option(help: "The owner's user id.") var user: String?
        @Option(help: "A free-form note.") var memo: String?
        @Flag(help: "Print the new todo as JSON.") var json = false

        func run() async throws {
            let userID = try user.map { try parseID($0, what: "user") }
            let chronicle = try StoreAccess.openStore(store)
            let todo = try await chronicle.createTodo(title: title, deadline: deadline, userId: userID, memo: memo)
            if json { CLIOutput.line(ModelJSON.todo(todo)) } else { CLIOutput.line(todo.id.lowercasedString) }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a todo's title, deadline and/or memo.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The todo's id.") var id: String
        @Option(help: "The new title.") var title: String?
        @Option(help: "The new deadline (YYYY-MM-DD).") var deadline: String?
        @Option(help: "The new memo.") var memo: String?
        @Flag(help: "Print the updated todo as JSON.") var json = false

        func run() async throws {
            let id = try parseID(id, what: "todo")
            let todo = try await StoreAccess.openStore(store).updateTodo(id, title: title, deadline: deadline, memo: memo)
            if json { CLIOutput.line(ModelJSON.todo(todo)) }
        }
    }

    struct Complete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark a todo completed.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The todo's id.") var id: String
        func run() async throws { try await StoreAccess.openStore(store).completeTodo(try parseID(id, what: "todo")) }
    }

    struct Reopen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark a completed todo open again.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The todo's id.") var id: String
        func run() async throws { try await StoreAccess.openStore(store).reopenTodo(try parseID(id, what: "todo")) }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a todo.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The todo's id.") var id: String
        func run() async throws { try await StoreAccess.openStore(store).deleteTodo(try parseID(id, what: "todo")) }
    }

    struct TagTodo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "tag", abstract: "Tag a todo with a live tag.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The todo's id.") var todo: String
        @Argument(help: "The tag's id.") var tag: String
        @Flag(help: "Print the tagged todo as JSON.") var json = false

        func run() async throws {
            let todoID = try parseID(todo, what: "todo"), tagID = try parseID(tag, what: "tag")
            let tagged = try await StoreAccess.openStore(store).tagTodo(todoID, tag: tagID)
            if json { CLIOutput.line(ModelJSON.todo(tagged)) }
        }
    }

    struct UntagTodo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "untag", abstract: "Remove a tag from a todo.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The todo's id.") var todo: String
        @Argument(help: "The tag's id.") var tag: String
        @Flag(help: "Print the untagged todo as JSON.") var json = false

        func run() async throws {
            let todoID = try parseID(todo, what: "todo"), tagID = try parseID(tag, what: "tag")
            let untagged = try await StoreAccess.openStore(store).untagTodo(todoID, tag: tagID)
            if json { CLIOutput.line(ModelJSON.todo(untagged)) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List todos by deadline.")
        @OptionGroup var store: StoreOptions
        @Option(help: "Only todos due on this day (YYYY-MM-DD).") var date: String?
        @Option(help: "Only this user's todos.") var user: String?
        @Option(help: "Only todos with this tag.") var tag: String?
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let userID = try user.map { try parseID($0, what: "user") }
            let tagID = try tag.map { try parseID($0, what: "tag") }
            let chronicle = try StoreAccess.openStore(store)
            try await chronicle.refresh()
            if let tagID, try await chronicle.tag(tagID) == nil { throw ChronicleError.rejected(.unknownTag(tagID)) }
            let todos = try await chronicle.todos(on: date, user: userID, tag: tagID)
            if json { CLIOutput.line(ModelJSON.array(todos, ModelJSON.todo)); return }
            CLIOutput.line(CLIOutput.table(["ID", "DEADLINE", "DONE", "USER", "TITLE"], todos.map {
                [$0.id.lowercasedString, $0.deadline.description, $0.isCompleted ? "yes" : "no",
                 $0.userId?.lowercasedString ?? "-", $0.title]
            }))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one todo.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The todo's id.") var id: String
        @Flag(help: "Print the todo as JSON.") var json = false

        func run() async throws {
            let id = try parseID(id, what: "todo")
            let chronicle = try StoreAccess.openStore(store)
            try await chronicle.refresh()
            guard let todo = try await chronicle.todo(id) else { throw ChronicleError.rejected(.unknownTodo(id)) }
            if json { CLIOutput.line(ModelJSON.todo(todo)); return }
            CLIOutput.line("""
                id:        \(todo.id.lowercasedString)
                title:     \(todo.title)
                deadline:  \(todo.deadline)
                completed: \(todo.isCompleted ? "yes" : "no")
                user:      \(todo.userId?.lowercasedString ?? "-")
                memo:      \(todo.memo ?? "-")
                tags:      \(todo.tags.isEmpty ? "-" : todo.tags.map(\.lowercasedString).joined(separator: " "))
                """)
        }
    }
}
