import './lib/zod-jitless';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { NotAttached } from './NotAttached';
import './styles/tokens.css';
import './styles/app.css';
import './styles/ui.css';
import { applyStoredPreferences } from './lib/preferences';

applyStoredPreferences();

const root = document.getElementById('root');
if (!root) throw new Error('missing #root');
// The Electron preload and the browser harness bind window.desk before this script runs.
const attached = (globalThis as { desk?: unknown }).desk !== undefined;
createRoot(root).render(<StrictMode>{attached ? <App /> : <NotAttached />}</StrictMode>);
