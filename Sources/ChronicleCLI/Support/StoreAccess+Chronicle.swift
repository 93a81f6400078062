@_spi(Operator) import Chronicle
import Foundation

extension StoreAccess {
    /// The app-level store; its stored entities catch up when read (a CLI process is short-lived).
    static func openStore(_ options: StoreOptions) throws -> ChronicleStore {
        let store = try ChronicleStore(directory: options.path, backgroundProjections: false, logOptions: logOptions(),
                                       upgradeProgress: upgradeProgress())
        try noticeEntitiesAhead(store.entityStates)
        _ = OpenedLogs.register(store.log)
        return store
    }
}
