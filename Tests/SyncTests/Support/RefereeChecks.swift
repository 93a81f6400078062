import Chronicle
import ChronicleReferee
import ChronicleRefereeSupport
import Foundation

// MARK: - The referee's verdict on a cluster

extension SyncCluster {
    /// The tenant's events in the server's order, read from the pages' JSON by the referee.
    func serverOrder() async throws -> [RefereeEvent] {
        var events: [RefereeEvent] = []
        var after: UInt64 = 0
        while true {
            let reply = try await http.request("GET", "v1/events?after=\(after)&limit=1000", token: Self.token)
            guard reply.status == 200 else { throw HTTP.PullFailed(status: reply.status, body: reply.text) }
            let page = try RefereeEvent.parseArray(json: reply.body)
            guard let last = page.last else { return events }
            events += page
            after = last.position
        }
    }

    /// Where a device (and the fresh one that only pulled) shows something other than the
    /// referee's fold of the server's order (users, todos, tags, stats, `tag-renamed`
    /// conflicts), or lists other `overwritten`/`deleted` conflicts than the referee's for its
    /// log; and how many of those the devices list in all.
    func refereeVerdict() async throws -> (problems: [String], conflicts: Int) {
        let order = try await serverOrder()
        let expected = RefereeState.fold(order)
        var problems: [String] = []
        var conflicts = 0
        for device in devices + extras {
            try await device.store.refresh()
            let shown = try await RefereeState.shown(by: device.store)
            problems += shown.differences(from: expected, device: device.name)
            let listed = try await RefereeState.conflictProblems(of: device.store, serverOrder: order, device: device.name)
            problems += listed.problems
            conflicts += listed.listed
        }
        return (problems, conflicts)
    }

    /// The problems of ``refereeVerdict()``.
    func refereeProblems() async throws -> [String] {
        try await refereeVerdict().problems
    }
}
