// `import Chronicle` is the only import an app needs: every type `ChronicleStore` takes,
// returns or throws is nameable, and its members usable, with it alone, also under Swift's
// `MemberImportVisibility` (which a typealias would not satisfy: members are looked up in
// the module that defines them, so that module must be imported, here re-exported).
//
// - Domain: the values (User, Todo, Tag, DailyStat, CalendarDay, DomainEvent, DomainError).
// - Projections: ReadModelChange, ProjectionName, MergeConflict, the models' status.
// - ChronicleSync: SyncConfiguration, SyncEngine, RetryPolicy, summaries, SyncStatus, SyncError.
// - EventLog: RecordedEvent, IngestResult, ForeignEvent (audit reads, import).
// - ChronicleSchema: ChronicleModel, the declared model a store records.
// - ChronicleTodoModel: TodoAppModel, the todo app's model.
@_exported import ChronicleSchema
@_exported import ChronicleSync
@_exported import ChronicleTodoModel
@_exported import Domain
@_exported import EventLog
@_exported import Projections
