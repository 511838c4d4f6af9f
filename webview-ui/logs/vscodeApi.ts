import type { PageMessage, PanelState } from '../../src/ui/logs/protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** The webview API, typed to our protocol. acquireVsCodeApi may be called once per page. */
export class HostChannel {
  private readonly api: VsCodeApi = acquireVsCodeApi();

  post(message: PageMessage): void {
    this.api.postMessage(message);
  }

  setState(state: PanelState): void {
    this.api.setState(state);
  }
}
