import Foundation

/// The run's ratios as an SVG bar chart (`--svg FILE`): one bar per ratio on a logarithmic
/// axis centred on 1× (right of it, the first system is faster), with a whisker from the
/// lowest to the highest run-by-run ratio. Plain SVG 1.1, no script, readable on GitHub.
struct RatioChart {
    struct Bar {
        var label: String
        var spread: Spread
    }

    let title: String
    let machine: String
    let bars: [Bar]

    /// Every ratio the report can take from `results`, in the table's order.
    init(machine: String, results: BenchResults, workloads: [Workload]) {
        var bars: [Bar] = []
        func add(_ label: String, _ spread: Spread?) {
            if let spread, spread.median > 0 { bars.append(Bar(label: label, spread: spread)) }
        }
        for workload in workloads {
            add("\(workload.rawValue): chronicle ÷ grdb", results.ratio(workload, over: .grdb))
            add("\(workload.rawValue): chronicle ÷ lmdb-raw", results.ratio(workload, over: .lmdbRaw))
            add("\(workload.rawValue): chronicle+keys ÷ chronicle", results.ratio(workload, .chronicleKeys, over: .chronicle))
            add("\(workload.rawValue): postgres (1) ÷ lmdb server", results.ratio(workload, .chroniclePostgres, over: .chronicle))
            add("\(workload.rawValue): postgres (3) ÷ postgres (1)",
                results.ratio(workload, .chroniclePostgres3, over: .chroniclePostgres))
            add("\(workload.rawValue): chronicle-notebook ÷ grdb-notebook",
                results.ratio(workload, .chronicleNotebook, over: .grdbNotebook))
        }
        add("append-single: 8 writers ÷ 1", results.ratio(.appendSingle8, .chronicle, over: .chronicle, otherWorkload: .appendSingle1))
        self.title = "chronicle-bench: ratios of events/s or ops/s (bar: median; whisker: min–max of the run-by-run ratios)"
        self.machine = machine
        self.bars = bars
    }

    func svg() -> String {
        let labelWidth = 330.0, plotWidth = 520.0, row = 22.0, top = 66.0, bottom = 16.0
        let width = labelWidth + plotWidth + 80, height = top + row * Double(max(bars.count, 1)) + bottom
        // The axis spans the ratios seen, in powers of ten, at least 0.1×–10×.
        let values = bars.flatMap { [$0.spread.min, $0.spread.max] }
        let low = floor(log10(min(values.min() ?? 0.1, 0.1))), high = ceil(log10(max(values.max() ?? 10, 10)))
        func x(_ ratio: Double) -> Double {
            labelWidth + (log10(Swift.max(ratio, 1e-9)) - low) / (high - low) * plotWidth
        }
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="10" y="18" font-size="13" font-weight="bold">\(Self.escape(title))</text>
            <text x="10" y="34" fill="#555">\(Self.escape(machine))</text>

            """
        for power in stride(from: low, through: high, by: 1) {
            let position = x(pow(10, power))
            out += "<line x1=\"\(f(position))\" y1=\"\(f(top - 8))\" x2=\"\(f(position))\" y2=\"\(f(height - bottom))\" stroke=\"\(power == 0 ? "#333" : "#ddd")\"/>\n"
            out += "<text x=\"\(f(position))\" y=\"\(f(top - 12))\" text-anchor=\"middle\">\(String(format: "%g×", pow(10, power)))</text>\n"
        }
        for (index, bar) in bars.enumerated() {
            let y = top + row * Double(index)
            let one = x(1), end = x(bar.spread.median)
            let colour = bar.spread.median >= 1 ? "#3b7dd8" : "#d8823b"
            out += "<text x=\"\(f(labelWidth - 8))\" y=\"\(f(y + 15))\" text-anchor=\"end\">\(Self.escape(bar.label))</text>\n"
            out += "<rect x=\"\(f(Swift.min(one, end)))\" y=\"\(f(y + 4))\" width=\"\(f(Swift.max(abs(end - one), 1)))\" height=\"\(f(row - 8))\" fill=\"\(colour)\"/>\n"
            out += "<line x1=\"\(f(x(bar.spread.min)))\" y1=\"\(f(y + row / 2))\" x2=\"\(f(x(bar.spread.max)))\" y2=\"\(f(y + row / 2))\" stroke=\"#222\"/>\n"
            out += "<text x=\"\(f(Swift.max(end, x(bar.spread.max)) + 6))\" y=\"\(f(y + 15))\">\(Report.ratioNumber(bar.spread.median))</text>\n"
        }
        out += "</svg>\n"
        return out
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
