@_spi(Operator) import Chronicle
import Foundation

extension StoreAccess {
    /// The app-level store; projections are applied on demand (a CLI process is short-lived).
    static func openStore(_ options: StoreOptions) throws -> ChronicleStore {
        let store = try ChronicleStore(directory: options.path, backgroundProjections: false, logOptions: logOptions(),
                                       upgradeProgress: upgradeProgress())
        try noticeModelsAhead(store.models, store.log)
        _ = OpenedLogs.register(store.log)
        return store
    }
}
