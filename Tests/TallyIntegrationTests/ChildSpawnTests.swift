import Foundation
import TallyTesting
import Testing

/// How the tests start processes (`ChildSpawn`): a child holds nothing of the test process but
/// its standard streams, and its end is reported as Foundation would.
@Suite struct ChildSpawnTests {
    @Test func aChildInheritsNoDescriptorBeyondItsStandardStreams() throws {
        // Descriptors without close-on-exec, as much of what a test process holds is.
        var pipes = [Int32](repeating: 0, count: 2)
        #expect(pipe(&pipes) == 0)
        defer { for descriptor in pipes { close(descriptor) } }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        // `ls` lists its own descriptors: the three streams and the one it reads the directory with.
        let ended = try ChildSpawn.run(["/bin/sh", "-c", "exec ls /proc/self/fd"], output: output)
        #expect(ended.succeeded)
        let listed = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
        #expect(listed.count == 4, "\(listed)")
        #expect(!listed.contains(pipes[0]) && !listed.contains(pipes[1]) || pipes.allSatisfy { $0 <= 3 }, "\(listed)")
    }

    @Test func anExitCodeAndASignalAreReportedAsFoundationDoes() throws {
        #expect(try ChildSpawn.run(["/bin/sh", "-c", "exit 3"], output: "/dev/null") == ChildSpawn.Termination(status: 3, signaled: false))
        #expect(try ChildSpawn.run(["/bin/sh", "-c", "kill -9 $$"], output: "/dev/null") == ChildSpawn.Termination(status: 9, signaled: true))
        #expect(throws: ChildSpawn.Failure.self) { try ChildSpawn.run(["/nonexistent/program"], output: "/dev/null") }
    }
}
