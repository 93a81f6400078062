import ChronicleWire
import ChronicleLog
import Foundation

/// `chronicle-bench json`: Chronicle's JSON reading beside Foundation's parsers, on the two
/// paths where JSON is read in bulk, in one process, the parsers alternating round by round on
/// the same bytes:
///
/// - **event data** (every projection, every rebuild): a stored payload to the todo app's typed
///   event. Chronicle: `TodoEvent(type:stream:data:)`, the todo app's model reading the event
///   (`ChronicleModel.EventReader`: the strict scanner, then the fields checked and typed, the
///   stream's id parsed) and its case made from that. Foundation: `JSONSerialization` to a dictionary, and
///   `JSONDecoder` to a `Codable` struct of the same fields; neither checks the stream nor
///   refuses duplicate keys, so they do less.
/// - **a push body** (the server, and a pulling client's pages): 500 events in the wire form to
///   events whose payload is kept as bytes. Chronicle: `WireEvent.decodePush`, which keeps each
///   payload's exact bytes and parses ids and timestamps. Foundation: `JSONSerialization`, each
///   payload serialized again (the only way to get bytes back, and not the same bytes), and
///   `JSONDecoder` with the payload as a generic JSON value encoded again by `JSONEncoder`;
///   timestamps stay strings.
enum JSONComparison {
    static let subcommand = "json"

    static func main(_ arguments: [String]) -> Int32 {
        var events = 100_000, rounds = 5
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--events": events = iterator.next().flatMap(Int.init) ?? events
            case "--runs": rounds = iterator.next().flatMap(Int.init) ?? rounds
            default:
                progress("usage: chronicle-bench json [--events N] [--runs N]")
                return 2
            }
        }
        var generated: [BenchEvent] = []
        var generator = DatasetGenerator()
        generator.generate(count: events) { generated.append($0) }
        let bodies = stride(from: 0, to: generated.count, by: 500).map { start in
            WirePush.encode(device: "bench", events: generated[start..<min(start + 500, generated.count)].map(\.recorded))
        }
        progress("json: \(generated.count) events, \(bodies.count) push bodies of up to 500, \(rounds) rounds")

        let data: [(String, (BenchEvent) throws -> Void)] = [
            ("chronicle", { event in _ = try TodoEvent(type: event.type, stream: event.stream, data: event.data) }),
            ("JSONSerialization", { event in
                guard try JSONSerialization.jsonObject(with: event.data) is [String: Any] else { throw BenchError.unsupported("not an object") }
            }),
            ("JSONDecoder", { event in _ = try JSONDecoder().decode(PayloadFields.self, from: event.data) }),
        ]
        let push: [(String, (Data) throws -> Int)] = [
            ("chronicle", { body in try WireEvent.decodePush(body).events.count }),
            ("JSONSerialization", { body in try FoundationPush.serialization(body) }),
            ("JSONDecoder", { body in try FoundationPush.decoder(body) }),
        ]
        do {
            var rows: [[String]] = [["path", "parser", "events/s (median, min–max)", "÷ chronicle"]]
            rows += try compare("event data", data.map { name, decode in
                (name, { for event in generated { try decode(event) }; return generated.count })
            }, rounds: rounds)
            rows += try compare("push body", push.map { name, decode in
                (name, { try bodies.reduce(0) { $0 + (try decode($1)) } })
            }, rounds: rounds)
            print(Report.render(rows), terminator: "")
            return 0
        } catch {
            progress("error: \(error)")
            return 1
        }
    }

    /// Runs each parser once per round, alternating; returns a row per parser.
    private static func compare(_ path: String, _ parsers: [(String, () throws -> Int)], rounds: Int) throws -> [[String]] {
        var rates = Array(repeating: [Double](), count: parsers.count)
        for round in 1...rounds {
            for (index, (name, run)) in parsers.enumerated() {
                var watch = Stopwatch()
                let count = try watch.measure { try run() }
                rates[index].append(Double(count) / watch.seconds)
                progress("  \(path), \(name), round \(round): \(Report.number(rates[index].last!)) events/s")
            }
        }
        let spreads = rates.compactMap(Spread.init)
        // Round by round against Chronicle's, as the main table takes its ratios.
        return parsers.indices.map { index in
            let ratios = Spread(zip(rates[index], rates[0]).map { $0 / $1 })!
            return [path, parsers[index].0, Report.rate(spreads[index]), Report.ratio(ratios)]
        }
    }
}

/// The fields of every event type's data, as `JSONDecoder` would read them.
private struct PayloadFields: Decodable {
    var name: String?
    var age: Int?
    var title: String?
    var deadline: String?
    var userId: UUID?
    var memo: String?
    var color: String?
    var tagId: UUID?
}

/// A push body the Foundation way.
private enum FoundationPush {
    struct Body: Decodable {
        var device: String
        var events: [Event]
    }

    struct Event: Decodable {
        var id: UUID
        var stream: String
        var version: UInt64
        var type: String
        var timestamp: String
        var origin: String
        var data: JSONValue
    }

    /// Any JSON value, kept so that the payload can be written back as bytes.
    enum JSONValue: Codable {
        case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null }
            else if let value = try? container.decode(Bool.self) { self = .bool(value) }
            else if let value = try? container.decode(Double.self) { self = .number(value) }
            else if let value = try? container.decode(String.self) { self = .string(value) }
            else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
            else { self = .object(try container.decode([String: JSONValue].self)) }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .array(let value): try container.encode(value)
            case .object(let value): try container.encode(value)
            }
        }
    }

    static func serialization(_ body: Data) throws -> Int {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any],
              let events = object["events"] as? [[String: Any]] else { throw BenchError.unsupported("not a push body") }
        for event in events {
            guard let data = event["data"] else { throw BenchError.unsupported("no data") }
            _ = try JSONSerialization.data(withJSONObject: data)
        }
        return events.count
    }

    static func decoder(_ body: Data) throws -> Int {
        let push = try JSONDecoder().decode(Body.self, from: body)
        let encoder = JSONEncoder()
        for event in push.events { _ = try encoder.encode(event.data) }
        return push.events.count
    }
}

private extension BenchEvent {
    /// The event as the wire carries it (a push leaves the position out).
    var recorded: RecordedEvent {
        RecordedEvent(position: 1, id: id, stream: stream, version: version, type: type, schemaVersion: 1,
                      timestampMilliseconds: timestampMilliseconds, origin: baselineOrigin, data: data)
    }
}
