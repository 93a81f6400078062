import ArgumentParser
import ChronicleSchema
import Foundation

/// `chronicle delete ENTITY ID` and `chronicle restore ENTITY ID`: an entity of the store's
/// model deleted (with the children its deletion deletes) or brought back as it was.
struct EntityDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an entity of the store's model, with the children its deletion deletes.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The entity's name, as 'chronicle model' shows it.") var entity: String
    @Argument(help: "Its id.") var id: String

    func validate() throws {
        _ = try parseID(id, what: "entity")
    }

    func run() async throws {
        let id = try parseID(id, what: "entity")
        try await ModelWriting.run({ _ in ChronicleModel.Command(entity: entity, id: id, action: .delete) }, store: store)
    }
}

/// `chronicle restore ENTITY ID`.
struct EntityRestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Bring a deleted entity of the store's model back as it was.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The entity's name, as 'chronicle model' shows it.") var entity: String
    @Argument(help: "Its id.") var id: String

    func validate() throws {
        _ = try parseID(id, what: "entity")
    }

    func run() async throws {
        let id = try parseID(id, what: "entity")
        try await ModelWriting.run({ _ in ChronicleModel.Command(entity: entity, id: id, action: .restore) }, store: store)
    }
}
