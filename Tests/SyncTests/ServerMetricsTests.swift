import ChronicleWire
import ChronicleLog
import Foundation
import Testing

/// `GET /metrics` as Prometheus scrapes it, after real traffic, on both storages.
@Suite("Server metrics", .timeLimit(.minutes(5)))
struct ServerMetricsTests {
    /// The value of the sample named exactly `series` (name and labels as Prometheus writes them).
    static func sample(_ series: String, in exposition: String) -> Double? {
        for line in exposition.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test("requests by route, method and status; events appended, duplicate and served; storage calls finished", arguments: ServerBackend.allCases)
    func countsWhatHappened(backend: ServerBackend) async throws {
        try await withServerAndStore(backend: backend) { server, _, _ in
            let events = try await ServerTests.events(3)
            let body = HTTP.pushBody(events)
            #expect(try await server.http.request("POST", "v1/events", token: "token-a", body: body).status == 200)
            #expect(try await server.http.request("POST", "v1/events", token: "token-a", body: body).status == 200)
            #expect(try await server.http.request("POST", "v1/events", token: "wrong-token", body: body).status == 401)
            #expect(try await server.http.pullAll(token: "token-a").count == 3)

            let reply = try await server.http.request("GET", "metrics", token: nil)
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"]?.hasPrefix("text/plain") == true, "\(reply.headers)")
            let text = reply.text
            #expect(Self.sample(#"chronicle_http_requests_total{route="/v1/events",method="POST",status="200"}"#, in: text) == 2, "\(text)")
            #expect(Self.sample(#"chronicle_http_requests_total{route="/v1/events",method="POST",status="401"}"#, in: text) == 1)
            #expect(Self.sample("chronicle_events_appended_total", in: text) == 3)
            #expect(Self.sample("chronicle_events_duplicate_total", in: text) == 3)
            #expect(Self.sample("chronicle_events_served_total", in: text) == 3)
            #expect(Self.sample(#"chronicle_storage_in_flight{operation="append"}"#, in: text) == 0)
            #expect(Self.sample(#"chronicle_storage_duration_seconds_count{operation="append"}"#, in: text) == 2)
            #expect(Self.sample(#"chronicle_http_request_duration_seconds_count{route="/v1/events",method="POST"}"#, in: text) == 3)
            #expect(!text.contains("token-a") && !text.contains("tenant"), "a label names a tenant or a token")
        }
    }
}
