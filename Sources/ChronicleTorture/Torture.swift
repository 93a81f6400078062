import ChronicleWire
import ChronicleLog
import Foundation

/// `ChronicleTorture`: a small process that the crash and multi-process tests start,
/// talk to through its standard streams, and kill.
///
/// Every `--store DIR` is a store folder, as for `chronicle`: the log lives in `DIR/log`.
/// Output lines are written unbuffered; failures print one `error: …` line on stderr
/// and exit with status 1 (2 for a usage mistake).
@main
enum Torture {
    static let usage = """
        usage: ChronicleTorture <command> [options]

          append-burst --store DIR --count N --stream-prefix P
                       [--batch K] [--streams S] [--concurrency C] [--tag T]
                       [--payload-bytes B] [--map-size BYTES] [--ack-file F]
                       [--echo-acks] [--wait-for-go] [--stream-index-checkpoint E] [--exit-unclosed]
                       [--touch KEY]
              Appends N events of type BurstEvent, K per append (default 1), to the
              streams P-0 … P-(S-1) in turn (default 4), from C tasks (default 1).
              Each event's data is {"tag":T,"n":i,"pad":"…"} (B pad bytes, default 0).
              After each append returns, its "position id" lines are written to F and
              fsynced; --echo-acks then prints "acked TOTAL". --wait-for-go prints
              "ready" once the store is open and waits for one line on stdin.
              --stream-index-checkpoint moves the stream index's checkpoint every E
              events (EventLog.Options.streamIndexCheckpoint). Prints "done HEAD" at the end.
              --exit-unclosed exits without closing the log, as a killed process would.
              --touch makes every append touch KEY (AppendKey.touch).

          tail --store DIR --count N [--after P]
              Prints "ready", then "position id" for each of the first N events after
              P (default 0), catch-up then live, then exits.

          verify --store DIR
              Prints "intact EVENTS HEAD" and exits 0, or "damaged POSITION CAUSE"
              and exits 1.

          domain-writer --store DIR --seed S [--count N] [--concurrency C]
                        [--partition I --partitions P] [--ack-file F] [--echo-acks]
                        [--wait-for-go]
              Random user and todo commands through ChronicleStore (background
              follower on), from C tasks (default 2), N each (default: until
              killed). Each task owns its entities; with several processes, give each
              its own partition I of P. After each command, one "stream version type"
              line per stream it appended to goes to F (fsynced); --echo-acks prints
              "acked TOTAL". Prints "ready" once the store is open, "done HEAD" at the end.

          racer --store DIR
              Prints "ready", then runs one store command per stdin line (tag-add,
              fill, delete-user, quit; see Racer.swift) and prints its outcome.

          catch-up-entities --store DIR [--wait-for-go] [--rebuild]
              Brings DIR/entities (the stored entities of the model the store
              records) up to the log's head: prints "ready" (then, with --wait-for-go,
              waits for one line on stdin), "committed POSITION" after each write
              transaction it commits, and "done POSITION" at the end. --rebuild folds
              the whole log again beside the states readers use, then swaps it in.

          hold --env DIR --txn read|write [--max-readers R] [--database NAME]
              Opens the LMDB environment DIR (R reader slots when it creates the lock
              file), begins a transaction, prints "holding" and keeps it open until a
              line arrives on stdin; then prints "released" (and "entries N" of NAME,
              read afresh). Killing it leaves a dead process's reader slot or write lock.
        """

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first else {
            Output.error("no command\n\(usage)")
            exit(2)
        }
        let options = Array(arguments.dropFirst())
        do {
            switch command {
            case "append-burst": try await appendBurst(options)
            case "tail": try await tail(options)
            case "verify": try verify(options)
            case "domain-writer": try await DomainWriter.run(options)
            case "hold": try Hold.run(options)
            case "racer": try await Racer.run(options)
            case "catch-up-entities": try EntitiesCatchUp.run(options)
            case "-h", "--help", "help": Output.line(usage)
            default: throw UsageError("unknown command '\(command)'")
            }
        } catch let error as UsageError {
            Output.error("\(error.description)\n\(usage)")
            exit(2)
        } catch {
            Output.error(String(describing: error))
            exit(1)
        }
    }

    // MARK: - append-burst

    static func appendBurst(_ raw: [String]) async throws {
        let arguments = try Arguments(raw, flagNames: ["echo-acks", "wait-for-go", "exit-unclosed"])
        let store = try arguments.string("store")
        let count = try arguments.int("count")
        let prefix = try arguments.string("stream-prefix")
        let batch = max(1, try arguments.int("batch", default: 1))
        let streams = max(1, try arguments.int("streams", default: 4))
        let concurrency = max(1, try arguments.int("concurrency", default: 1))
        let tag = arguments.optionalString("tag") ?? prefix
        let pad = String(repeating: "x", count: try arguments.int("payload-bytes", default: 0))
        var options = EventLog.Options()
        if let mapSize = arguments.optionalString("map-size") {
            guard let size = Int(mapSize), size > 0 else { throw UsageError("--map-size must be a positive number") }
            options.initialMapSize = size
        }
        options.streamIndexCheckpoint = try arguments.int("stream-index-checkpoint", default: options.streamIndexCheckpoint)
        let keys = arguments.optionalString("touch").map { [AppendKey.touch($0)] } ?? []
        let acks = try AckFile(path: arguments.optionalString("ack-file"))
        let echo = arguments.flag("echo-acks")

        let log = try EventLog(path: store + "/log", options: options)
        if arguments.flag("wait-for-go") {
            Output.line("ready")
            _ = readLine()
        }
        let batchCount = (count + batch - 1) / batch
        let acknowledged = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    for batchIndex in stride(from: worker, to: batchCount, by: concurrency) {
                        let numbers = (batchIndex * batch)..<min(count, (batchIndex + 1) * batch)
                        let events = numbers.map { n in
                            NewEvent(type: "BurstEvent", data: Data(#"{"tag":\#(EventJSON.quote(tag)),"n":\#(n),"pad":"\#(pad)"}"#.utf8))
                        }
                        let result = try await log.append([StreamAppend(stream: "\(prefix)-\(batchIndex % streams)", events: events)],
                                                          keys: keys)
                        try acks.record(zip(result.positions, events).map { "\($0) \($1.id.uuidString.lowercased())" })
                        let total = acknowledged.add(events.count)
                        if echo { Output.line("acked \(total)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        let head = try log.head()
        if arguments.flag("exit-unclosed") {
            Output.line("done \(head)")
            exit(0)   // what closing the log does (its closing checkpoint) is left undone
        }
        log.close()
        Output.line("done \(head)")
    }

    // MARK: - tail

    static func tail(_ raw: [String]) async throws {
        let arguments = try Arguments(raw, flagNames: [])
        let store = try arguments.string("store")
        let count = try arguments.int("count")
        let after = UInt64(try arguments.int("after", default: 0))
        let log = try EventLog(path: store + "/log")
        Output.line("ready")
        var seen = 0
        if count > 0 {
            for try await event in log.subscribe(after: after) {
                Output.line("\(event.position) \(event.id.uuidString.lowercased())")
                seen += 1
                if seen == count { break }
            }
        }
        log.close()
    }

    // MARK: - verify

    static func verify(_ raw: [String]) throws {
        let arguments = try Arguments(raw, flagNames: [])
        let log = try EventLog(path: try arguments.string("store") + "/log")
        let report = try log.verify()
        log.close()
        if let problem = report.problem {
            Output.line("damaged \(problem.position) \(problem.cause.rawValue)")
            exit(1)
        }
        Output.line("intact \(report.eventsChecked) \(report.head)")
    }
}
