import ChronicleSync
import Projections

// The sync vocabulary an app needs, under `import Chronicle`: an app syncs through its
// store (`push`, `pull`, `syncStatus`, `conflicts`, `syncEngine` for a long-running `run`)
// without importing the sync module.

/// Where and how to sync: the remote, its token, batch sizes, retry and polling (see ``ChronicleSync/SyncConfiguration``).
public typealias SyncConfiguration = ChronicleSync.SyncConfiguration
/// The long-running sync of one store (``ChronicleStore/syncEngine(_:)``; see ``ChronicleSync/SyncEngine``).
public typealias SyncEngine = ChronicleSync.SyncEngine
/// How the waits between failed tries grow (see ``ChronicleSync/RetryPolicy``).
public typealias RetryPolicy = ChronicleSync.RetryPolicy
/// What a push did (see ``ChronicleSync/PushSummary``).
public typealias PushSummary = ChronicleSync.PushSummary
/// What a pull did (see ``ChronicleSync/PullSummary``).
public typealias PullSummary = ChronicleSync.PullSummary
/// Where sync stands (see ``ChronicleSync/SyncStatus``).
public typealias SyncStatus = ChronicleSync.SyncStatus
/// Why a sync failed (see ``ChronicleSync/SyncError``).
public typealias SyncError = ChronicleSync.SyncError
/// Something a merge overruled (see ``Projections/MergeConflict``).
public typealias MergeConflict = Projections.MergeConflict
