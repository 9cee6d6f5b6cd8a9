import Foundation

/// CPU time used so far by a set of processes (user and system, every thread), from
/// `/proc/<pid>/stat`: what a request costs the machine, which a busy machine slows down far less
/// than it slows down wall-clock throughput.
struct ProcessCPU: Sendable {
    let pids: [Int32]

    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// Seconds of CPU used by each of `pids` so far, in their order; nil where `/proc` cannot say
    /// (not Linux).
    func seconds() -> [Double]? {
        var used: [Double] = []
        for pid in pids {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // Fields after the command name: state is field 3, utime 14 and stime 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
            used.append((user + system) / Self.ticksPerSecond)
        }
        return used
    }

    /// The resident set size of a process (`VmRSS`), in bytes.
    static func residentBytes(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes * 1024
    }
}
