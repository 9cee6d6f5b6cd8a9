import Foundation
import TallyLifecycle
import TallyTesting
import Testing

/// How Tally starts processes (`ChildSpawn`: the tests' children and `tally up`'s): a child holds
/// nothing of its parent but its standard streams, and its end is reported as Foundation would.
@Suite struct ChildSpawnTests {
    @Test func aChildInheritsNoDescriptorBeyondItsStandardStreams() throws {
        // Descriptors without close-on-exec, as much of what a test process holds is.
        var ends = [Int32](repeating: 0, count: 2)
        #expect(pipe(&ends) == 0)
        // Numbered from 200 up, so none can be the one `ls` opens for itself (the lowest free).
        let pipes = ends.map { fcntl($0, F_DUPFD, 200) }
        for end in ends { close(end) }
        defer { for descriptor in pipes { close(descriptor) } }
        #expect(pipes.allSatisfy { $0 >= 200 })
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        // `ls` lists its own descriptors: the three streams and the one it reads the directory with.
        let ended = try ChildSpawn.run(["/bin/sh", "-c", "exec ls /proc/self/fd"], output: output)
        #expect(ended.succeeded)
        let listed = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
        #expect(listed.count == 4, "\(listed)")
        #expect(!listed.contains(pipes[0]) && !listed.contains(pipes[1]), "\(listed)")
    }

    @Test func anExitCodeAndASignalAreReportedAsFoundationDoes() throws {
        #expect(try ChildSpawn.run(["/bin/sh", "-c", "exit 3"], output: "/dev/null") == ChildSpawn.Termination(status: 3, signaled: false))
        #expect(try ChildSpawn.run(["/bin/sh", "-c", "kill -9 $$"], output: "/dev/null") == ChildSpawn.Termination(status: 9, signaled: true))
        #expect(throws: ChildSpawn.Failure.self) { try ChildSpawn.run(["/nonexistent/program"], output: "/dev/null") }
    }

    /// `tally up`'s way: a child's output on a pipe of its own. The reader sees end of file once
    /// that child has exited, even while a child started after it (which could have inherited the
    /// pipe's write end) still runs.
    @Test func aChildsOutputPipeEndsWithTheChildNotWithItsLaterSiblings() throws {
        let environment = ProcessInfo.processInfo.environment
        let short = try ChildSpawn.startWithOutputPipe(["/bin/sh", "-c", "echo said; echo also >&2; exec ls /proc/self/fd"], environment: environment)
        let long = try ChildSpawn.startWithOutputPipe(["/bin/sh", "-c", "exec sleep 30"], environment: environment)
        defer {
            kill(long.pid, SIGKILL)
            _ = ChildSpawn.wait(for: long.pid)
            close(long.output)
        }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(short.output, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            output.append(contentsOf: buffer[0..<count])
        }
        close(short.output)
        #expect(ChildSpawn.wait(for: short.pid).succeeded)
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        #expect(lines.prefix(2) == ["said", "also"], "standard output and error both on the pipe: \(lines)")
        // The three streams and the descriptor ls reads the directory with; nothing of the parent's.
        #expect(lines.dropFirst(2).compactMap { Int32($0) }.count == 4, "\(lines)")
    }
}
