import ChronicleWire
import ChronicleLog
import Foundation
import Testing

extension Reliability.ServerAbuseTests {
    /// A push body of one event whose timestamp is `timestamp`, written as given.
    static func body(timestamp: String) -> [UInt8] {
        let id = UUIDv7.make().uuidString.lowercased()
        return Array(#"{"device":"device-1","events":[{"id":"\#(id)","stream":"todo-1","version":1,"type":"TodoCreated","timestamp":"\#(timestamp)","origin":"device-1","data":{}}]}"#.utf8)
    }

    @Test("an impossible instant is refused, never rewritten: a day the month lacks, a leap second, more than 3 fraction digits")
    func impossibleTimestamps() async throws {
        try await Self.withServer { server in
            for timestamp in ["2026-02-31T00:00:00Z", "2026-04-31T12:00:00.000Z", "2027-02-29T00:00:00Z",
                              "2100-02-29T00:00:00Z", "2026-12-31T23:59:60Z", "2026-11-22T02:30:00.1234Z",
                              "2026-11-22T02:30:00.123456789Z", "2026-11-22T02:30:00.Z"] {
                let reply = try #require(try await Self.push(server.port, token: Self.alpha, body: Self.body(timestamp: timestamp)))
                #expect(reply.status == 400, "\(timestamp): \(reply.status) \(reply.text)")
                #expect(reply.errorMessage?.contains("\"timestamp\"") == true, "\(timestamp): \(reply.text)")
            }
            #expect(try server.tenantFolders().isEmpty, "a refused push stored something")
            // Real instants are kept exactly: a leap day, and fewer than 3 fraction digits.
            for (timestamp, served) in [("2028-02-29T23:59:59Z", "2028-02-29T23:59:59.000Z"),
                                        ("2000-02-29T00:00:00.1Z", "2000-02-29T00:00:00.100Z"),
                                        ("2026-11-22T02:30:00.12Z", "2026-11-22T02:30:00.120Z")] {
                let reply = try #require(try await Self.push(server.port, token: Self.alpha, body: Self.body(timestamp: timestamp)))
                #expect(reply.status == 200, "\(timestamp): \(reply.text)")
                let last = try #require(try await Self.pull(server.port, token: Self.alpha).last)
                #expect(Timestamp.format(milliseconds: last.timestampMilliseconds) == served)
            }
        }
    }

    @Test("a push says its body is JSON in UTF-8: another charset gets 415; charset=utf-8 in any case or quoted is fine")
    func charsets() async throws {
        try await Self.withServer { server in
            for contentType in ["application/json; charset=iso-8859-1", "application/json; charset=utf-16",
                                "application/json; boundary=x", "application/jsonx", "text/json"] {
                let reply = try #require(try await Self.push(server.port, token: Self.alpha, contentType: contentType,
                                                              body: Self.body(Self.events(1))))
                #expect(reply.status == 415, "\(contentType): \(reply.status)")
            }
            #expect(try server.tenantFolders().isEmpty)
            for contentType in ["application/json", "Application/JSON; charset=UTF-8", #"application/json;charset="utf-8""#] {
                let reply = try #require(try await Self.push(server.port, token: Self.alpha, contentType: contentType,
                                                              body: Self.body(Self.events(1))))
                #expect(reply.status == 200, "\(contentType): \(reply.status) \(reply.text)")
            }
        }
    }

    @Test("a pull's query is digits only, each parameter once, nothing else: signs, repeats and unknown names get 400")
    func strictQuery() async throws {
        try await Self.withServer { server in
            let auth = [("Authorization", "Bearer \(Self.alpha)")]
            for query in ["after=+1", "after=-0", "limit=+5", "after=1&after=2", "limit=5&limit=5", "after=%201",
                          "after=1.0", "after=", "since=3", "after=0&limit=10&cursor=x",
                          "after=9223372036854775808", "after=18446744073709551615"] {
                let reply = try #require(try await Self.exchange(server.port, request("GET", "/v1/events?\(query)", headers: auth)))
                #expect(reply.status == 400, "\(query): \(reply.status) \(reply.text)")
            }
            for query in ["", "?after=0", "?after=0&limit=1", "?limit=10000", "?after=9223372036854775807"] {
                let reply = try #require(try await Self.exchange(server.port, request("GET", "/v1/events\(query)", headers: auth)))
                #expect(reply.status == 200, "\(query): \(reply.status) \(reply.text)")
            }
        }
    }

    @Test("another method on a known path gets 405 with Allow; HEAD /healthz answers 200")
    func methodsNotAllowed() async throws {
        try await Self.withServer { server in
            for (path, allow) in [("/healthz", "GET, HEAD"), ("/v1/events", "GET, POST")] {
                for method in ["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"] {
                    let reply = try #require(try await Self.exchange(server.port, request(method, path)))
                    #expect(reply.status == 405, "\(method) \(path): \(reply.status)")
                    #expect(reply.headers["allow"] == allow, "\(method) \(path): \(reply.headers)")
                    #expect(reply.errorMessage?.contains("not allowed") == true)
                }
            }
            let post = try #require(try await Self.exchange(server.port, request("POST", "/healthz", body: [])))
            #expect(post.status == 405)
            // A HEAD answer has a Content-Length but no body: read the status line of what arrives before the close.
            let head = try await onThread {
                let connection = try RawConnection(port: server.port)
                connection.send(request("HEAD", "/healthz", headers: [("Connection", "close")]))
                return String(decoding: try connection.readToEnd(), as: UTF8.self)
            }
            #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
            let unknown = try #require(try await Self.exchange(server.port, request("GET", "/v2/events")))
            #expect(unknown.status == 404)
        }
    }
}

extension Reliability.ServerAbuseTests {
    @Test("a client that goes away mid-body is logged as a refused request (408), not as a server failure (500)")
    func clientGoneMidBody() async throws {
        let logs = LogCapture()
        try await Self.withServer(logs: logs) { server in
            let head = "POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.alpha)\r\n"
                + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"device\":"
            try await onThread {
                let connection = try RawConnection(port: server.port)
                _ = connection.send(head)
                // Closed before the other 990 bytes: the connection's end is the client going away.
                return ()
            }
            try await Self.expectHealthy(server)
            // The handler logs once it sees the body end early: wait for that entry (the suite's time limit bounds it).
            var refused: LogCapture.Entry?
            for await entry in logs.entries where entry.metadata["path"] == "/v1/events" {
                refused = entry
                break
            }
            #expect(refused?.metadata["status"] == "408", "\(String(describing: refused))")
            #expect(refused?.level == .notice)
            #expect(!logs.logged.contains { $0.level >= .error }, "\(logs.logged)")
            #expect(try server.tenantFolders().isEmpty)
        }
    }
}

extension Reliability.ServerAbuseTests {
    @Test("a request head over the limits (a 100 KB header, 1,001 headers) gets 431 with a JSON error, then the connection closes")
    func headersTooLarge() async throws {
        try await Self.withServer { server in
            let long = [("X-Padding", String(repeating: "a", count: 100 * 1024))]
            let many = (0...1000).map { ("X-Header-\($0)", "v") }
            for headers in [long, many] {
                let (reply, rest) = try await onThread {
                    let connection = try RawConnection(port: server.port)
                    connection.send(request("GET", "/healthz", headers: headers))
                    return (try connection.readResponse(), try connection.readToEnd())
                }
                let answer = try #require(reply, "closed without an answer (\(headers.count) headers)")
                #expect(answer.status == 431, "\(answer.status) \(answer.text)")
                #expect(answer.headers["content-type"]?.hasPrefix("application/json") == true, "\(answer.headers)")
                #expect(answer.errorMessage?.contains("header") == true, "\(answer.text)")
                #expect(rest.isEmpty, "more followed the answer")
            }
            // A head that is not HTTP at all: 400, also JSON.
            let garbage = try #require(try await Self.exchange(server.port, Array("HELLO\r\n\r\n".utf8)))
            #expect(garbage.status == 400, "\(garbage.status)")
            #expect(garbage.errorMessage != nil, "\(garbage.text)")
            try await Self.expectHealthy(server)
            // The router never saw them; the metrics count them all the same.
            let metrics = try #require(try await Self.exchange(server.port, request("GET", "/metrics"))).text
            #expect(metrics.contains(#"chronicle_http_requests_total{route="unrouted",method="unknown",status="431"} 2"#), "\(metrics)")
            #expect(metrics.contains(#"chronicle_http_requests_total{route="unrouted",method="unknown",status="400"} 1"#), "\(metrics)")
        }
    }

    @Test("a client that writes a whole oversized body before it reads gets the 413 and the connection's end, declared or chunked")
    func oversizedBodyWrittenWhole() async throws {
        try await Self.withServer { server in
            let auth = [("Authorization", "Bearer \(Self.alpha)"), ("Content-Type", "application/json")]
            // 64 MiB, far more than the kernel's socket buffers hold: the server must read it to let the client finish.
            let body = [UInt8](repeating: 0x20, count: 64 << 20)
            var chunked = Array("\(String(body.count, radix: 16))\r\n".utf8) + body
            chunked += Array("\r\n0\r\n\r\n".utf8)
            for bytes in [request("POST", "/v1/events", headers: auth, body: body),
                          // urllib also asks for the connection's end after the answer.
                          request("POST", "/v1/events", headers: auth + [("Connection", "close")], body: body),
                          request("POST", "/v1/events", headers: auth + [("Transfer-Encoding", "chunked")], body: chunked,
                                  contentLength: false)] {
                let (sentWhole, reply, rest) = try await onThread {
                    // As Python's urllib does: every byte written before the first read.
                    let connection = try RawConnection(port: server.port, timeout: 20)
                    let sentWhole = connection.send(bytes)
                    // The answer, then the end of the stream (a read that timed out would throw).
                    return (sentWhole, try connection.readResponse(), try connection.readToEnd())
                }
                #expect(sentWhole, "the server stopped reading before the body's end: the client's writes failed")
                let answer = try #require(reply, "closed without an answer")
                #expect(answer.status == 413, "\(answer.status) \(answer.text)")
                #expect(answer.headers["connection"] == "close", "\(answer.headers)")
                #expect(rest.isEmpty, "more followed the answer")
            }
            #expect(try server.tenantFolders().isEmpty)
            try await Self.expectHealthy(server)
        }
    }
}
