/// What a storage shared by several servers tells each of them about commits made through
/// the others (``EventStorage/observeCommits(_:)``), so that their waiting pulls read again.
///
/// A notice is a hint, never the truth: a waiting pull reads the tenant's events whatever
/// it says, and once more when its wait ends, so a notice lost, late or sent twice delays a
/// pull by at most its wait and never makes it skip or repeat an event.
public enum CommitNotice: Sendable, Hashable {
    /// `tenant` has committed events.
    case tenant(String)
    /// Notices may have been lost (the storage's channel for them was cut and is back): any
    /// tenant may have committed events.
    case anyTenant
}
