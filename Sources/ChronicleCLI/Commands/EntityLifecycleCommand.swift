import ArgumentParser
import ChronicleSchema
import Foundation

/// `chronicle delete ENTITY ID` and `chronicle restore ENTITY ID`: an entity of the store's
/// model deleted (with the children its deletion deletes) or brought back as it was.
struct EntityLifecycleCommand<Change: EntityLifecycleChange>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Change.commandName, abstract: Change.abstract)
    }

    @OptionGroup var store: StoreOptions
    @Argument(help: "The entity's name, as 'chronicle model' shows it.") var entity: String
    @Argument(help: "Its id.") var id: String

    func validate() throws {
        _ = try parseID(id, what: "entity")
    }

    func run() async throws {
        let id = try parseID(id, what: "entity")
        try await ModelWriting.run({ _ in ChronicleModel.Command(entity: entity, id: id, action: Change.action) }, store: store)
    }
}

/// What a lifecycle command does, and its name.
protocol EntityLifecycleChange {
    static var commandName: String { get }
    static var abstract: String { get }
    static var action: ChronicleModel.Command.Action { get }
}

/// `chronicle delete`.
enum EntityDeletion: EntityLifecycleChange {
    static let commandName = "delete"
    static let abstract = "Delete an entity of the store's model, with the children its deletion deletes."
    static let action = ChronicleModel.Command.Action.delete
}

/// `chronicle restore`.
enum EntityRestoration: EntityLifecycleChange {
    static let commandName = "restore"
    static let abstract = "Bring a deleted entity of the store's model back as it was."
    static let action = ChronicleModel.Command.Action.restore
}
