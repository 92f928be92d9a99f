import { render } from 'preact';
import '../shared/style.css';
import { ConsoleApp } from './ConsoleApp';

render(<ConsoleApp />, document.getElementById('app')!);
