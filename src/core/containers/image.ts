// `resources.image_id: docker:<image>[:tag]` — SkyPilot's way to run a task in a container.

/** What a container cluster records in its handle (ops/clusterHandle.ts `container`). */
export interface ContainerHandle {
  /** The runtime found on the node: the program run for every call. */
  runtime: 'podman' | 'docker' | string;
  /** `skydeck-<uid>`: derived from the cluster's uid, so a relaunch of the name never meets it. */
  name: string;
  image: string;
  /** Multi-node: the runtime found on each worker (hosts[1..]), same container name there. */
  workerRuntimes?: string[];
}

export const DOCKER_PREFIX = 'docker:';

// A reference as registries spell it: [host[:port]/]path[:tag][@digest]. Anything else (spaces,
// quotes, `$(…)`, a leading dash that a runtime would read as a flag) is refused before it
// reaches a node, though every use is quoted too.
const REFERENCE = /^[a-z0-9][a-z0-9._-]*(?::[0-9]+)?(?:\/[a-z0-9][a-z0-9._-]*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/**
 * The container image a task asks for, undefined for a machine image (or none), or a problem
 * naming the field. A per-region map of `docker:` values is not a container request
 * SkyPilot knows either.
 */
export function containerImageOf(imageId: string | Record<string, string> | undefined): { image: string } | { problem: string } | undefined {
  if (typeof imageId !== 'string' || !imageId.startsWith(DOCKER_PREFIX)) return undefined;
  const image = imageId.slice(DOCKER_PREFIX.length).trim();
  if (!image) return { problem: 'image_id: "docker:" names no image; write docker:<image>[:tag], e.g. docker:ubuntu:22.04' };
  if (image.length > 255 || !REFERENCE.test(image)) {
    return { problem: `image_id: ${JSON.stringify(image).slice(0, 300)} is not an image reference ([registry/]name[:tag][@sha256:digest], lower-case name)` };
  }
  return { image: qualified(image) };
}

/**
 * Docker Hub's names spelled out (`ubuntu:22.04` → `docker.io/library/ubuntu:22.04`), as docker
 * reads them: podman refuses a short name when no search registry is configured (Debian's
 * default), and SkyPilot tasks name Hub images short.
 */
export function qualified(image: string): string {
  const first = image.split('/')[0];
  const hasDomain = image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasDomain) return image;
  return image.includes('/') ? `docker.io/${image}` : `docker.io/library/${image}`;
}

/** The container of a cluster uid (names allow [a-zA-Z0-9_.-]; a uid is hex and dashes). */
export function containerNameOf(uid: string): string {
  return `skydeck-${uid.replace(/[^a-zA-Z0-9_.-]/g, '')}`;
}
