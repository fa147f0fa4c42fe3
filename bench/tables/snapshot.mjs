export async function runSnapshot() { return { notMeasurable: 'todo' }; }
