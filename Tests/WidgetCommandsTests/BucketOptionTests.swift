import Foundation
import Testing
import WidgetCommands

/// `--out s3://BUCKET/PREFIX` and the bucket's options: what is read, from where, and the sentences
/// that say what is wrong.
struct BucketOptionTests {
    func output(_ arguments: [String], variables: [String: String] = [:]) throws(UsageError) -> OutputOption {
        var parsed = Arguments(arguments, variables: variables)
        let option = try OutputOption(arguments: &parsed)
        try parsed.finish()
        return option
    }

    func problem(_ arguments: [String], variables: [String: String] = [:]) -> String? {
        do {
            _ = try output(arguments, variables: variables)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func anS3URLSelectsTheBucketWithItsOptions() throws {
        let option = try output([
            "--out", "s3://widgets/prod", "--s3-endpoint", "http://127.0.0.1:8333", "--s3-region", "eu-central-1", "--s3-path-style",
            "--work", "bucket-work",
        ])
        #expect(option.isBucket)
        #expect(option.out == "s3://widgets/prod")
        #expect(option.endpoint == "http://127.0.0.1:8333")
        #expect(option.region == "eu-central-1")
        #expect(option.pathStyle)
        #expect(option.work == "bucket-work")
        #expect(option.workOrigin == "--work")
        #expect(option.localFolder == "bucket-work")
        let plain = try output(["--out=S3://widgets"])
        #expect(plain.isBucket)
        #expect(plain.endpoint == nil)
        #expect(plain.region == nil)
        #expect(!plain.pathStyle)
        let variable = try output([], variables: ["WIDGETD_OUT": "s3://widgets/p"])
        #expect(variable.isBucket)
        #expect(variable.origin == "$WIDGETD_OUT")
        #expect(!(try output(["--out", "out"])).isBucket)
    }

    @Test func theWorkingFolderFallsBackOnTheEnvironment() throws {
        let bucket = ["--out", "s3://widgets/prod"]
        #expect(try output(bucket).work == ".widgetd-work")
        #expect(try output(bucket).workOrigin == "the default")
        let systemd = ["STATE_DIRECTORY": "/var/lib/widgetd:/var/lib/other"]
        #expect(try output(bucket, variables: systemd).work == "/var/lib/widgetd")
        #expect(try output(bucket, variables: systemd).workOrigin == "$STATE_DIRECTORY")
        let named = systemd.merging(["WIDGETD_WORK": "/srv/work"]) { $1 }
        #expect(try output(bucket, variables: named).work == "/srv/work")
        #expect(try output(bucket + ["--work", "here"], variables: named).work == "here")
        // A folder output has no working folder: it is its own.
        #expect(try output(["--out", "out"], variables: named).work == nil)
        #expect(try output(["--out", "out"]).localFolder == "out")
    }

    @Test func aBucketsOptionWithAFolderOutputIsAUsageError() {
        #expect(
            problem(["--out", "out", "--s3-endpoint", "http://127.0.0.1:8333"])
                == "--s3-endpoint applies only to a bucket output (--out s3://BUCKET/PREFIX), and the output is the folder out")
        #expect(problem(["--work", "w"])?.hasPrefix("--work applies only to a bucket output") == true)
        #expect(problem(["--s3-path-style"])?.hasPrefix("--s3-path-style applies only to a bucket output") == true)
    }
}
