// The log panel page: one job's live output in a read-only terminal. See LogsApp.
import '@xterm/xterm/css/xterm.css';
import './styles.css';
import { LogsApp } from './app';
import { stampStyleNonces, styleAttributesViaCssom } from './cspShims';
import { HostChannel } from './vscodeApi';

/** Headless page tests set this before the bundle runs to reach the app; production never does. */
type TestHook = (app: LogsApp) => void;

// Before anything creates a <style>: the nonce is only readable from our own script element.
stampStyleNonces(document, (document.currentScript as HTMLScriptElement | null)?.nonce);
styleAttributesViaCssom(window);
const root = document.getElementById('root') ?? document.body.appendChild(document.createElement('div'));
const app = new LogsApp(root, new HostChannel());
(globalThis as { __skydeckLogsTestHook?: TestHook }).__skydeckLogsTestHook?.(app);
