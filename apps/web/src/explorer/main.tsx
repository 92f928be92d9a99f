import { render } from 'preact';
import '../shared/style.css';
import { ExplorerApp } from './ExplorerApp';

render(<ExplorerApp />, document.getElementById('app')!);
