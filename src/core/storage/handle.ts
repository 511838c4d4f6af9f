// A bucket mounted on a node: what unmount and the flush-wait need to find it again.

export interface MountHandle {
  label: string;
  /** The mount point as the kernel reports it (absolute, symlinks resolved). */
  mountPoint: string;
  /** State directory on the node: rclone.log, pid, cache/. */
  stateDir: string;
  /** The rclone mount process (node pid). */
  pid: number;
  cached: boolean;
  /** "skydeck:bkt/prefix", the mount's source in mountinfo. */
  source: string;
}
