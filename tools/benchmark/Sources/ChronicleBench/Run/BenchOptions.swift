import Foundation

/// The command line of `chronicle-bench`.
struct BenchOptions: Sendable {
    var quick = false
    var runs: Int?
    var jsonPath: String?
    var svgPath: String?
    /// Every workload but the notebook's, which `--only notes` selects (at 1,000,000 events its
    /// runs take longer than all the others together).
    var workloads: [Workload] = Workload.allCases.filter { !$0.isNotebook }
    var directory: String?
    var keep = false
    var diagnose = false
    var seed: UInt64 = 0x43_48_52_4F_4E_49_43_4C
    /// Which todos the changes touch: `recent` (mostly recent ones, as in an app) or `uniform`.
    var access = "recent"
    /// The data sets' size, when given (`--events N`): otherwise 1,000,000, or 100,000 with `--quick`.
    var events: Int?

    static let usage = """
        usage: chronicle-bench [--quick] [--events N] [--runs N] [--json FILE] [--svg FILE] [--only LIST] [--dir DIR] [--keep]
               chronicle-bench json [--events N] [--runs N]   (Chronicle's JSON reading beside Foundation's)
               chronicle-bench live [--waiting 1,100,1000] [--writes N] [--poll-writes N] [--storage lmdb,postgres]
                                    (write-to-visible latency with devices waiting, beside polling)

        Runs Chronicle, GRDB (SQLite) and raw LMDB side by side on the same generated data,
        alternating the systems run by run, and prints a table of medians (min–max) and
        run-by-run ratios. Progress goes to stderr.

          --quick        a tenth of the data (100,000 events instead of 1,000,000)
          --events N     the data sets' size (the other sizes stay as --quick sets them)
          --runs N       runs per workload and system (default 5, 3 with --quick)
          --json FILE    also write the figures as JSON
          --svg FILE     also draw the ratios as an SVG bar chart
          --only LIST    comma-separated workloads: a|append-batch, b|append-single, c|rebuild,
                         d|reads, e|sync (sync-push and sync-pull), n|notes (the notebook, a second
                         model, beside GRDB: notes-append-batch, notes-apply-batch, notes-rebuild and
                         the reads, notes-reads; run only when named), or single names such as
                         read-todo or notes-read-day (default: every workload but the notebook's)
          --dir DIR      where the stores go (default: a new folder under $TMPDIR or /tmp)
          --keep         keep the stores afterwards
          --diagnose     also run append-batch on raw LMDB with Chronicle's two indexes (table only)
          --seed N       the data set's seed
          --access MODE  which todos the changes touch: recent (3 in 4 go to recently created
                         todos; the default) or uniform (any live todo: the worst case for indexes)
        """

    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var options = BenchOptions()
        var iterator = arguments.makeIterator()
        func value(_ flag: String) throws -> String {
            guard let value = iterator.next() else { throw BenchError.usage("\(flag) needs a value") }
            return value
        }
        while let argument = iterator.next() {
            switch argument {
            case "--quick": options.quick = true
            case "--keep": options.keep = true
            case "--diagnose": options.diagnose = true
            case "--runs":
                guard let runs = Int(try value(argument)), runs > 0 else { throw BenchError.usage("--runs takes a positive number") }
                options.runs = runs
            case "--events":
                guard let events = Int(try value(argument)), events > 0 else { throw BenchError.usage("--events takes a positive number") }
                options.events = events
            case "--json": options.jsonPath = try value(argument)
            case "--svg": options.svgPath = try value(argument)
            case "--dir": options.directory = try value(argument)
            case "--seed":
                guard let seed = UInt64(try value(argument)) else { throw BenchError.usage("--seed takes a number") }
                options.seed = seed
            case "--access":
                options.access = try value(argument)
                guard ["recent", "uniform"].contains(options.access) else { throw BenchError.usage("--access takes recent or uniform") }
            case "--only":
                var selected: [Workload] = []
                for name in try value(argument).split(separator: ",") {
                    guard let group = Workload.named(String(name)) else { throw BenchError.usage("unknown workload '\(name)'") }
                    selected += group
                }
                options.workloads = Workload.allCases.filter(selected.contains)
            case "-h", "--help":
                print(usage)
                exit(0)
            default:
                throw BenchError.usage("unknown argument '\(argument)'\n\n\(usage)")
            }
        }
        return options
    }

    var runCount: Int { runs ?? (quick ? 3 : 5) }

    /// The sizes of every workload: the issue's, or a tenth of them with `--quick`.
    var sizes: Sizes {
        var sizes = quick ? Sizes.full.tenth : Sizes.full
        if let events { sizes.events = events }
        return sizes
    }

    struct Sizes: Sendable {
        var events: Int
        var batchSize: Int
        var singleEvents1: Int
        var singleEvents8: Int
        /// Seconds after which the single-event appends stop (whatever the disk does).
        var singleTimeLimit: Double
        var readTodo: Int
        var readDayStats: Int
        var readDayTodos: Int
        var syncEvents: Int
        /// Lists of one folder's notes (the notebook's other reads take the todo reads' counts:
        /// a note as a todo, a day's notes as a day's todos, a day's row as a day's stats).
        var readFolderNotes: Int

        static let full = Sizes(events: 1_000_000, batchSize: 1_000, singleEvents1: 10_000, singleEvents8: 40_000, singleTimeLimit: 10,
                                readTodo: 100_000, readDayStats: 100_000, readDayTodos: 5_000, syncEvents: 100_000,
                                readFolderNotes: 20_000)

        var tenth: Sizes {
            Sizes(events: events / 10, batchSize: batchSize, singleEvents1: singleEvents1 / 10,
                  singleEvents8: singleEvents8 / 10, singleTimeLimit: singleTimeLimit / 5, readTodo: readTodo / 10, readDayStats: readDayStats / 10,
                  readDayTodos: readDayTodos / 10, syncEvents: syncEvents / 10, readFolderNotes: readFolderNotes / 10)
        }

        /// How many reads a run of notebook read `workload` does.
        func notebookReads(_ workload: Workload) -> Int {
            switch workload {
            case .notesReadNote: readTodo
            case .notesReadFolder: readFolderNotes
            case .notesReadDay: readDayTodos
            default: readDayStats
            }
        }
    }
}
