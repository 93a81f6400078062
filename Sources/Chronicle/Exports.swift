// `import Chronicle` is the only import an app needs: every type `ChronicleStore` takes,
// returns or throws is nameable, and its members usable, with it alone, also under Swift's
// `MemberImportVisibility` (which a typealias would not satisfy: members are looked up in
// the module that defines them, so that module must be imported, here re-exported).
//
// - ChronicleTodoDomain: the todo app's values (User, Todo, Tag, DailyStat, CalendarDay,
//   DomainError).
// - ChronicleProjections: ReadModelChange, MergeConflict, RebuildSummary, RebuildProgress.
// - ChronicleSync: SyncConfiguration, SyncEngine, RetryPolicy, summaries, SyncStatus, SyncError.
// - ChronicleEvents: RecordedEvent, IngestResult, ForeignEvent (audit reads, import) and
//   EventLogOptions. The raw log itself (EventLog, in module ChronicleLog) is not exported: an
//   operator's tool imports it, and reaches a store's log through `@_spi(Operator) import Chronicle`.
// - ChronicleSchema: ChronicleModel, the declared model a store records.
// - ChronicleTodoModel: TodoAppModel, the todo app's model.
@_exported import ChronicleEvents
@_exported import ChronicleProjections
@_exported import ChronicleSchema
@_exported import ChronicleSync
@_exported import ChronicleTodoDomain
@_exported import ChronicleTodoModel
