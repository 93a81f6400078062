import ChronicleWire
import ChronicleLog
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plain HTTP requests for the tests that speak to a server directly.
struct HTTP: Sendable {
    let base: URL

    struct Reply: Sendable {
        var status: Int
        var body: Data
        var headers: [String: String]
        var text: String { String(decoding: body, as: UTF8.self) }

        /// The `{"error": …}` message.
        var errorMessage: String? {
            (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? String
        }

        /// A top-level JSON object.
        var object: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }
    }

    func request(_ method: String, _ path: String, token: String?, contentType: String? = "application/json",
                 body: Data? = nil) async throws -> Reply {
        var request = URLRequest(url: URL(string: path, relativeTo: base)!)
        request.httpMethod = method
        request.timeoutInterval = 60
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let contentType, body != nil { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        return Reply(status: http.statusCode, body: data, headers: headers)
    }

    /// Every event the server holds for `token`'s tenant, pulled in pages.
    func pullAll(token: String, pageSize: Int = 1000) async throws -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        var after: UInt64 = 0
        while true {
            let reply = try await request("GET", "v1/events?after=\(after)&limit=\(pageSize)", token: token)
            guard reply.status == 200 else { throw PullFailed(status: reply.status, body: reply.text) }
            let page = try WireEvent.decodePage(reply.body)
            guard let last = page.events.last else { return events }
            events += page.events
            after = last.position
        }
    }

    struct PullFailed: Error { var status: Int; var body: String }

    /// A push body for `events`, as a client sends it.
    static func pushBody(_ events: [RecordedEvent], device: String = "test-device") -> Data {
        WirePush.encode(device: device, events: events)
    }
}
