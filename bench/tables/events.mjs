export async function runEvents() { return { notMeasurable: 'todo' }; }
