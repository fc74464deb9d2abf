import Dispatch

/// A task executor with a thread of its own: the jobs of the tasks that prefer it run, one at a time, on
/// a serial dispatch queue, which the system backs with a thread of its own whenever it has work.
///
/// A refresh's stages run on one of these (see ``Deadline``), not on the cooperative pool that Swift
/// concurrency shares out among all tasks, which has one thread per core. Two templates that keep a
/// core busy each would otherwise hold every thread of that pool, and the daemon's loop, the other
/// widgets' refreshes and the stop would wait for them; here the kernel shares the cores among all the
/// threads, so a busy refresh only slows the others down.
final class ThreadExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String = "widgetd.refresh") {
        // A serial queue made here is "overcommit": it gets a thread even when every core is busy.
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
