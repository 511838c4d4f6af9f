// What the kill -9 parent and its "work" child share: the child writes one line per
// operation ("phase launch") and per cloud call ("call 7 runInstances after") to this fd.
export const REPORT_FD = 3;
