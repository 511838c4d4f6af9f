// Azure Blob "buckets": a container in a storage account, through @azure/storage-blob 12
// (loaded on first use). Tags are container metadata (azureNames.ts). Credentials: the
// Azure identity chain (DefaultAzureCredential: environment, workload/managed identity, az
// CLI) unless the caller opts in to an account key or a connection string (Azurite, ssh pools).
import type { BlobServiceClient, ContainerClient } from '@azure/storage-blob';
import { StorageError } from '../errors';
import { containerLabel, fromMetadata, toMetadata, UID_METADATA } from './azureNames';
import { uploadChanged, type Held } from './localFiles';
import type { BucketStore, DeleteProof, ListedBucket, UploadProgress, UploadResult } from './types';

export type AzureCredentialChoice =
  /** The account's shared key: the explicit opt-in. */
  | { kind: 'sharedKey'; key: string }
  /** A connection string (carries its own endpoint and key). */
  | { kind: 'connectionString'; value: string };

export interface AzureStoreOptions {
  /** The storage account that holds the containers. */
  account: string;
  /** The Blob endpoint, default https://<account>.blob.core.windows.net (Azurite: http://127.0.0.1:<port>/<account>). */
  endpoint?: string;
  /** Absent: DefaultAzureCredential. */
  credential?: AzureCredentialChoice;
}

interface RestErrorLike { statusCode?: number; code?: string; message?: string; name?: string }

export class AzureBucketStore implements BucketStore {
  readonly store = 'azure' as const;
  private client?: Promise<BlobServiceClient>;

  constructor(private readonly o: AzureStoreOptions) {}

  private async service(): Promise<BlobServiceClient> {
    this.client ??= (async () => {
      const blob = await import('@azure/storage-blob');
      const c = this.o.credential;
      if (c?.kind === 'connectionString') return blob.BlobServiceClient.fromConnectionString(c.value);
      const url = this.o.endpoint ?? `https://${this.o.account}.blob.core.windows.net`;
      if (c?.kind === 'sharedKey') return new blob.BlobServiceClient(url, new blob.StorageSharedKeyCredential(this.o.account, c.key));
      const { DefaultAzureCredential } = await import('@azure/identity');
      return new blob.BlobServiceClient(url, new DefaultAzureCredential());
    })();
    return this.client;
  }

  private async container(name: string): Promise<ContainerClient> {
    return (await this.service()).getContainerClient(name);
  }

  /** Maps a RestError (statusCode, code = x-ms-error-code) or an identity error to a StorageError. */
  private error(name: string, what: string, e: unknown): StorageError {
    const err = e as RestErrorLike;
    const where = containerLabel(this.o.account, name);
    const detail = `${err.statusCode ? `${err.statusCode} ` : ''}${err.code ?? ''}`.trim() || (err.message ?? String(e)).split('\n')[0].slice(0, 200);
    if (err.statusCode === 401 || err.statusCode === 403) {
      return new StorageError('denied', where, `${what} was denied (${detail})`,
        'Check the account key, or give your identity "Storage Blob Data Contributor" and "Storage Account Contributor" on the account.');
    }
    if (err.code === 'ContainerNotFound' || err.statusCode === 404) return new StorageError('bucket-missing', where, `${what}: the container does not exist (${detail})`, 'Check the container and account names.');
    if (err.code === 'ContainerAlreadyExists') return new StorageError('bucket-exists', where, 'a container of that name already exists in the account', 'Choose another name.');
    if (err.code === 'ContainerBeingDeleted') return new StorageError('bucket-exists', where, 'a container of that name is still being deleted', 'Wait about 30 seconds and try again, or choose another name.');
    if (err.name === 'CredentialUnavailableError' || err.name === 'AggregateAuthenticationError') {
      return new StorageError('no-credentials', where, `${what}: no Azure credentials were found`, 'Run `az login`, or use a managed identity.');
    }
    if (err.code === 'ENOTFOUND' || err.code === 'ECONNREFUSED' || err.code === 'ETIMEDOUT') return new StorageError('unreachable', where, `${what}: ${detail}`, 'Check the account name and the network path to the Blob endpoint.');
    return new StorageError('failed', where, `${what} failed (${detail})`, 'Retry; if it persists, check the storage account in the portal.');
  }

  async exists(name: string, signal?: AbortSignal): Promise<boolean> {
    try {
      return await (await this.container(name)).exists({ abortSignal: signal });
    } catch (e) {
      // Marked for deletion: it will not exist (create meanwhile says "being deleted").
      if ((e as RestErrorLike).code === 'ContainerBeingDeleted') return false;
      throw this.error(name, 'checking the container', e);
    }
  }

  async create(name: string, tags: Record<string, string>, signal?: AbortSignal): Promise<void> {
    const metadata = toMetadata(this.o.account, name, tags);
    try {
      await (await this.container(name)).create({ metadata, abortSignal: signal });
    } catch (e) {
      throw this.error(name, 'creating the container', e);
    }
  }

  async tags(name: string, signal?: AbortSignal): Promise<Record<string, string>> {
    try {
      return fromMetadata((await (await this.container(name)).getProperties({ abortSignal: signal })).metadata);
    } catch (e) {
      throw this.error(name, 'reading the container\'s metadata', e);
    }
  }

  async listSkydeck(signal?: AbortSignal): Promise<ListedBucket[]> {
    const out: ListedBucket[] = [];
    try {
      for await (const page of (await this.service()).listContainers({ includeMetadata: true, abortSignal: signal }).byPage({ maxPageSize: 100 })) {
        for (const c of page.containerItems) {
          if (c.metadata?.[UID_METADATA]) out.push({ store: 'azure', name: c.name, tags: fromMetadata(c.metadata), location: { account: this.o.account } });
        }
      }
    } catch (e) {
      throw this.error('', 'listing containers', e);
    }
    return out;
  }

  async upload(name: string, files: Map<string, string>, onProgress?: (p: UploadProgress) => void, signal?: AbortSignal): Promise<UploadResult> {
    const c = await this.container(name);
    const held = new Map<string, Held>();
    try {
      for await (const b of c.listBlobsFlat({ abortSignal: signal })) {
        const md5 = b.properties.contentMD5;
        held.set(b.name, { size: b.properties.contentLength ?? -1, md5: md5 ? Buffer.from(md5).toString('base64') : undefined });
      }
    } catch (e) {
      throw this.error(name, 'listing the container before the upload', e);
    }
    return uploadChanged({
      label: `azure://${name}`, files, held, limit: 8, onProgress, signal,
      send: async (f) => {
        try {
          // Content-MD5 is set explicitly: a block-list upload (large files) has none otherwise.
          await c.getBlockBlobClient(f.key).uploadFile(f.path, { blobHTTPHeaders: { blobContentMD5: f.md5 }, abortSignal: signal });
        } catch (e) {
          throw this.error(name, `uploading ${f.key}`, e);
        }
      },
    });
  }

  /** Deleting a container deletes its blobs; the service removes it asynchronously (~30 s). */
  async delete(name: string, signal?: AbortSignal): Promise<DeleteProof> {
    const c = await this.container(name);
    try {
      await c.delete({ abortSignal: signal });
    } catch (e) {
      throw this.error(name, 'deleting the container', e);
    }
    try {
      await c.getProperties({ abortSignal: signal });
    } catch (e) {
      const err = e as RestErrorLike;
      if (err.statusCode === 404) return { name, proof: `Get Container Properties → 404 ${err.code ?? 'ContainerNotFound'}` };
      if (err.code === 'ContainerBeingDeleted') return { name, proof: `Get Container Properties → ${err.statusCode} ContainerBeingDeleted (the service is removing it)` };
      throw this.error(name, 'proving the container gone', e);
    }
    throw new StorageError('failed', containerLabel(this.o.account, name), 'the container is still there after its delete succeeded', 'Look at it in the portal and delete it again.');
  }
}
